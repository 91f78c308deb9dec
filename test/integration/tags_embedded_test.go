//go:build embedded_controller

package integration

// buildTagArgs are the go build flags matching this test binary's tags.
var buildTagArgs = []string{"-tags", "embedded_controller"}
