package metrics

// Refusals counts the brokers' registrations the Controller refused for a
// rule or a bound of its replicated state, by request and field.
type Refusals struct{ refused *CounterVec }

// RefusalRequests are the request label values; others become LabelOther.
var RefusalRequests = []string{"apply_broker_id", "register_broker", "heartbeat"}

// RefusalFields are the field label values ("none": a bound of the whole
// state); others become LabelOther.
var RefusalFields = []string{"clusterName", "brokerName", "brokerAddress", "brokerAddr", "registerCheckCode", "none"}

// NewRefusals registers <prefix>_broker_registrations_refused_total{request,field} in reg.
func NewRefusals(reg *Registry, prefix string) *Refusals {
	r := &Refusals{refused: NewCounterVec(prefix+"_broker_registrations_refused_total",
		"Brokers' registrations (APPLY_BROKER_ID, REGISTER_BROKER, heartbeats) refused for a rule or a bound of "+
			"the replicated state, by request and field (none: a bound of the whole state).", "request", "field")}
	reg.Register(r.refused)
	return r
}

// Refused counts one refusal; a nil *Refusals counts nothing.
func (r *Refusals) Refused(request, field string) {
	if r != nil {
		r.refused.With(boundedLabel(request, RefusalRequests...), boundedLabel(field, RefusalFields...)).Inc()
	}
}
