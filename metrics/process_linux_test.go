package metrics

import "os"

func readProcFile() ([]byte, error) { return os.ReadFile("/proc/self/stat") }
