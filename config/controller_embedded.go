//go:build embedded_controller

package config

// ControllerCompiledIn reports whether this binary embeds the controller
// (built with -tags embedded_controller).
const ControllerCompiledIn = true

// validateController checks the embedded controller's keys when
// enableControllerInNamesrv=true, including collisions with the NameServer's
// listen address.
func validateController(c *NamesrvConfig) []error {
	if !c.EnableControllerInNamesrv {
		return nil
	}
	return c.Controller.ruleErrors(c.ListenAddr())
}
