//go:build !embedded_controller

package config

import "fmt"

// ControllerCompiledIn reports whether this binary embeds the controller
// (built with -tags embedded_controller).
const ControllerCompiledIn = false

// validateController rejects enableControllerInNamesrv=true: this binary has
// no controller.
func validateController(c *NamesrvConfig) []error {
	if !c.EnableControllerInNamesrv {
		return nil
	}
	return []error{fmt.Errorf("%w: %w: enableControllerInNamesrv (true) requires a binary built with "+
		"-tags embedded_controller; this binary has no controller", ErrInvalid, ErrControllerNotCompiledIn)}
}
