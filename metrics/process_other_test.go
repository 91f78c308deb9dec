//go:build !linux

package metrics

import "errors"

func readProcFile() ([]byte, error) { return nil, errors.New("no /proc") }
