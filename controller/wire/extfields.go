package wire

import (
	"strconv"
	"strings"
)

// extMap builds a response's extFields; absent (nil or "") values are omitted.
type extMap map[string]string

func (m extMap) str(k, v string) {
	if v != "" {
		m[k] = v
	}
}

// names writes the clusterName and brokerName most headers start with.
func (m extMap) names(cluster, broker string) {
	m.str("clusterName", cluster)
	m.str("brokerName", broker)
}

func (m extMap) strp(k string, v *string) {
	if v != nil {
		m[k] = *v
	}
}

func (m extMap) i64(k string, v *int64) {
	if v != nil {
		m[k] = strconv.FormatInt(*v, 10)
	}
}

func (m extMap) i32(k string, v *int32) {
	if v != nil {
		m[k] = strconv.FormatInt(int64(*v), 10)
	}
}

func (m extMap) master(id *int64, addr *string, epoch *int32) {
	m.i64("masterBrokerId", id)
	m.strp("masterAddress", addr)
	m.i32("masterEpoch", epoch)
}

// extReader decodes a request's extFields the way Java's decodeCommandCustomHeader
// does: a missing @CFNotNull field is an error (code 1), an unparsable number
// keeps the default, and a request without any extFields skips every check.
type extReader struct {
	m   map[string]string
	err error
}

func (r *extReader) present(k string, notNull bool) (string, bool) {
	v, ok := r.m[k]
	if !ok && notNull && r.m != nil && r.err == nil {
		r.err = &RequestError{Remark: "the custom field <" + k + "> is null"}
	}
	return v, ok
}

func (r *extReader) str(k string, notNull bool) string {
	v, _ := r.present(k, notNull)
	return v
}

func (r *extReader) i64(k string, notNull bool, def int64) int64 {
	v, ok := r.present(k, notNull)
	if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
		return n
	}
	return def
}

func (r *extReader) i64p(k string) *int64 {
	v, ok := r.present(k, false)
	if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
		return &n
	}
	return nil
}

func (r *extReader) i32p(k string) *int32 {
	v, ok := r.present(k, false)
	if n, err := strconv.ParseInt(v, 10, 32); ok && err == nil {
		n32 := int32(n)
		return &n32
	}
	return nil
}

func (r *extReader) boolean(k string, notNull bool) bool {
	v, _ := r.present(k, notNull)
	return strings.EqualFold(v, "true") // Boolean.parseBoolean
}

// DecodeGetNextBrokerIDRequest reads a 1012 header.
func DecodeGetNextBrokerIDRequest(ext map[string]string) (GetNextBrokerIDRequest, error) {
	r := extReader{m: ext}
	return GetNextBrokerIDRequest{ClusterName: r.str("clusterName", false),
		BrokerName: r.str("brokerName", false)}, r.err
}

// DecodeApplyBrokerIDRequest reads a 1013 header.
func DecodeApplyBrokerIDRequest(ext map[string]string) (ApplyBrokerIDRequest, error) {
	r := extReader{m: ext}
	return ApplyBrokerIDRequest{ClusterName: r.str("clusterName", false), BrokerName: r.str("brokerName", false),
		AppliedBrokerID:   r.i64("appliedBrokerId", false, NoBrokerID),
		RegisterCheckCode: r.str("registerCheckCode", false)}, r.err
}

// DecodeRegisterBrokerRequest reads a 1003 header.
func DecodeRegisterBrokerRequest(ext map[string]string) (RegisterBrokerRequest, error) {
	r := extReader{m: ext}
	return RegisterBrokerRequest{ClusterName: r.str("clusterName", false), BrokerName: r.str("brokerName", false),
		BrokerID: r.i64("brokerId", false, NoBrokerID), BrokerAddress: r.str("brokerAddress", false),
		InvokeTime: r.i64("invokeTime", false, 0)}, r.err
}

// DecodeGetReplicaInfoRequest reads a 1004 header.
func DecodeGetReplicaInfoRequest(ext map[string]string) (GetReplicaInfoRequest, error) {
	r := extReader{m: ext}
	return GetReplicaInfoRequest{BrokerName: r.str("brokerName", false)}, r.err
}

// DecodeAlterSyncStateSetRequest reads a 1001 header and its SyncStateSet body.
// An absent masterEpoch becomes -1 (always fenced; Java would fail with an
// NPE and code 1).
func DecodeAlterSyncStateSetRequest(ext map[string]string, body []byte) (AlterSyncStateSetRequest, error) {
	r := extReader{m: ext}
	req := AlterSyncStateSetRequest{BrokerName: r.str("brokerName", false),
		MasterBrokerID: r.i64("masterBrokerId", false, NoBrokerID),
		MasterEpoch:    int32(r.i64("masterEpoch", false, -1)), InvokeTime: r.i64("invokeTime", false, 0)}
	if r.err != nil {
		return req, r.err
	}
	ss, err := DecodeSyncStateSet(body)
	if err != nil {
		return req, &RequestError{Remark: "decode SyncStateSet body: " + err.Error()}
	}
	req.SyncStateSet = ss
	return req, nil
}

// DecodeElectMasterRequest reads a 1002 header (all four fields @CFNotNull).
func DecodeElectMasterRequest(ext map[string]string) (ElectMasterRequest, error) {
	r := extReader{m: ext}
	return ElectMasterRequest{ClusterName: r.str("clusterName", true), BrokerName: r.str("brokerName", true),
		BrokerID: r.i64("brokerId", true, NoBrokerID), DesignateElect: r.boolean("designateElect", true),
		InvokeTime: r.i64("invokeTime", false, 0)}, r.err
}

// DecodeCleanBrokerDataRequest reads a 1011 header (brokerName @CFNotNull).
func DecodeCleanBrokerDataRequest(ext map[string]string) (CleanBrokerDataRequest, error) {
	r := extReader{m: ext}
	return CleanBrokerDataRequest{ClusterName: r.str("clusterName", false), BrokerName: r.str("brokerName", true),
		BrokerControllerIDsToClean: r.str("brokerControllerIdsToClean", false),
		IsCleanLivingBroker:        r.boolean("isCleanLivingBroker", false),
		InvokeTime:                 r.i64("invokeTime", false, 0)}, r.err
}

// DecodeBrokerHeartbeatRequest reads a 904 header (clusterName, brokerAddr
// and brokerName @CFNotNull; the rest nullable).
func DecodeBrokerHeartbeatRequest(ext map[string]string) (BrokerHeartbeatRequest, error) {
	r := extReader{m: ext}
	return BrokerHeartbeatRequest{ClusterName: r.str("clusterName", true), BrokerAddr: r.str("brokerAddr", true),
		BrokerName: r.str("brokerName", true), BrokerID: r.i64p("brokerId"), Epoch: r.i32p("epoch"),
		MaxOffset: r.i64p("maxOffset"), ConfirmOffset: r.i64p("confirmOffset"),
		HeartbeatTimeoutMillis: r.i64p("heartbeatTimeoutMills"), ElectionPriority: r.i32p("electionPriority")}, r.err
}
