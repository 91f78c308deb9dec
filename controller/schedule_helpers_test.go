//go:build embedded_controller

package controller

import (
	"github.com/rmqgo/nameserver/controller/sched"
	"time"
)

// schedule runs build as a global task (ordered with every other task):
// scheduleOn with globalKeys. Tests use it where the keys do not matter.
func (c *Controller) schedule(build buildFunc, timeout time.Duration) outcome {
	return c.scheduleOn(sched.GlobalKeys(), build, timeout)
}
