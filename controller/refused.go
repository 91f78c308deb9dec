//go:build embedded_controller

package controller

import (
	"cmp"
	"errors"

	"github.com/rmqgo/nameserver/remoting"
)

// A broker refused its own registration (APPLY_BROKER_ID, REGISTER_BROKER)
// or heartbeat for a rule or a bound of the replicated state retries
// forever and, as a Java broker, still logs "boot success"; a heartbeat
// is oneway, so the broker never sees that refusal at all. Each such
// refusal is made visible on the controller: a warn line (paced like
// every line of the controller's logger, lograte) naming the address the
// broker gave, the field and the configuration key that would let it
// pass, and a counter by request and field
// (rocketmq_controller_broker_registrations_refused_total).

// registrationRequests labels the requests of a broker's registration.
var registrationRequests = map[int32]string{
	remoting.ControllerApplyBrokerID:  "apply_broker_id",
	remoting.ControllerRegisterBroker: "register_broker",
	remoting.BrokerHeartbeat:          "heartbeat",
}

// Raise values of a refusal that no key lets pass.
const (
	raiseNoRule = "none: a rule, not a bound"
)

// noteRefused reports err if it refuses req, a broker's registration, for
// a field's rule or a bound (domainError.Field or Key set).
func (c *Controller) noteRefused(conn *remoting.Conn, req *remoting.Command, err error) {
	request, ok := registrationRequests[req.Code]
	var de *domainError
	if !ok || !errors.As(err, &de) || (de.Field == "" && de.Key == "") {
		return
	}
	field := cmp.Or(de.Field, "none")
	c.opts.refusals.Refused(request, field)
	remote := ""
	if conn != nil {
		remote = conn.RemoteAddr()
	}
	c.logger.Warn("broker registration refused", "request", request, "broker", claimedAddr(req), "remote", remote,
		"field", field, "raise", cmp.Or(de.Key, raiseNoRule), "error", de.Remark)
}

// claimedAddr is the broker address a registration request gives.
func claimedAddr(req *remoting.Command) string {
	switch req.Code {
	case remoting.ControllerApplyBrokerID:
		return brokerAddressOf(req.ExtFields["registerCheckCode"])
	case remoting.ControllerRegisterBroker:
		return req.ExtFields["brokerAddress"]
	}
	return req.ExtFields["brokerAddr"]
}
