//go:build embedded_controller

package controller

import "time"

// schedule runs build as a global task (ordered with every other task):
// scheduleOn with globalKeys. Tests use it where the keys do not matter.
func (c *Controller) schedule(build buildFunc, timeout time.Duration) outcome {
	return c.scheduleOn(globalKeys(), build, timeout)
}

// submit enqueues fn as a global task (it waits for, and holds back,
// everything but reads): errNotLeader once stopped, errSystemBusy when full.
func (s *scheduler) submit(fn func()) error { return s.submitOn(globalKeys(), fn) }
