//go:build embedded_controller

package config

import "fmt"

// ControllerCompiledIn reports whether this binary embeds the controller
// (built with -tags embedded_controller).
const ControllerCompiledIn = true

// validateController checks the embedded controller's keys when
// enableControllerInNamesrv=true, including collisions with the NameServer's
// listen address.
func validateController(c *Namesrv) []error {
	if !c.EnableControllerInNamesrv {
		return nil
	}
	errs := c.Controller.ruleErrors(c.ListenAddr())
	if sameFile(c.Controller.ConfigStorePath, c.ConfigStorePath) {
		errs = append(errs, fmt.Errorf("%w: the embedded controller's own file %s is the -c file; "+
			"name the -c file otherwise", ErrInvalid, c.Controller.ConfigStorePath))
	}
	return errs
}
