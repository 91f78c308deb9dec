//go:build !embedded_controller

package main

import (
	"fmt"
	"io"
)

// runController reports that this build has no controller.
func runController(_ options, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "mqcontroller: built without -tags embedded_controller; rebuild with it to run a controller")
	return 1
}
