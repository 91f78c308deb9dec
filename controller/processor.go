//go:build embedded_controller

package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller/sched"
	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// The processor layer (ControllerRequestProcessor): it registers the 12
// codes Java's DLedger controller serves, plus this project's membership
// codes 42001-42004 (members.go) and ControllerBackup (backup.go).
// Leader-gated codes are decoded (a missing @CFNotNull field is code 1,
// before any leader check), then built, appended and answered on the
// scheduler; 904, 1005, 1009 and 1010 are answered by any node.

// prepareFunc decodes a request into the command to schedule and the
// scheduler keys it runs under (sched.Keys).
type prepareFunc func(req *remoting.Command) (sched.Keys, buildFunc, error)

func (c *Controller) registerProcessors() {
	gated := map[int32]prepareFunc{
		remoting.ControllerAlterSyncStateSet: c.prepareAlter,
		remoting.ControllerRegisterBroker:    c.prepareRegister,
		remoting.ControllerGetReplicaInfo:    c.prepareReplicaInfo,
		remoting.ControllerGetSyncStateData:  c.prepareSyncStateData,
		remoting.CleanBrokerData:             c.prepareClean,
		remoting.ControllerGetNextBrokerID:   c.prepareNextID,
		remoting.ControllerApplyBrokerID:     c.prepareApplyID,
	}
	// Leader-gated codes wait for a Raft commit (up to requestTimeout): they
	// run off the read loop, so heartbeats behind them are not delayed.
	for code, prepare := range gated {
		c.srv.RegisterAsync(code, c.leaderHandler(prepare))
	}
	c.srv.RegisterAsync(remoting.ControllerElectMaster, c.handleElectMaster)
	c.srv.RegisterTransient(remoting.BrokerHeartbeat, c.handleHeartbeat) // keeps nothing of the request
	c.srv.Register(remoting.ControllerGetMetadataInfo, c.handleMetadata)
	c.srv.Register(remoting.UpdateControllerConfig, c.handleUpdateConfig)
	c.srv.Register(remoting.GetControllerConfig, c.handleGetConfig)
	// This project's own codes: membership (members.go), backup (backup.go).
	c.registerMembers()
	c.srv.RegisterAsync(remoting.ControllerBackup, c.handleBackup)
}

// leaderHandler serves a leader-gated code: decode, schedule, answer.
func (c *Controller) leaderHandler(prepare prepareFunc) remoting.HandlerFunc {
	return func(conn *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
		keys, build, err := prepare(req)
		if err != nil {
			return c.respond(req, outcome{err: err}), nil
		}
		keys.Weight = max(keys.Weight, requestBytes(req))
		out := c.scheduleOn(keys, build, requestTimeout)
		c.noteRefused(conn, req, out.err)
		return c.respond(req, out), nil
	}
}

// respond turns an outcome into the reply: the code and remark of its
// error (responseCode), and the builder's header and body when it ran.
func (c *Controller) respond(req *remoting.Command, out outcome) *remoting.Command {
	code, remark := responseCode(out.err)
	resp := c.newResponse(req, code, remark)
	if out.resp != nil {
		resp.ExtFields = out.resp.ExtFields()
		if body := out.resp.BodyBytes(); len(body) > 0 {
			resp.Body = body
		}
	}
	return resp
}

func (c *Controller) newResponse(req *remoting.Command, code int32, remark string) *remoting.Command {
	resp := remoting.NewResponse(req, code, remark)
	resp.Version = c.opts.version
	return resp
}

// stringHeaderBytes is the size of a Go string header: a decoded name
// holds it besides its bytes.
const stringHeaderBytes = 16

// requestBytes is the weight of a task that holds req's decoded fields:
// its body and ext fields' bytes (a decoded size estimate may be larger).
func requestBytes(req *remoting.Command) int64 {
	n := int64(len(req.Body))
	for k, v := range req.ExtFields {
		n += int64(len(k) + len(v))
	}
	return n
}

// namesBytes is the decoded size of names as a read task keeps them.
func namesBytes(names []string) int64 {
	n := int64(cap(names)) * stringHeaderBytes
	for _, s := range names {
		n += int64(len(s))
	}
	return n
}

// prepareAlter refuses a set of more distinct ids than any set may hold
// (the hard ceiling of controllerMaxBrokersPerSet) with 2005 before its
// task is queued.
func (c *Controller) prepareAlter(req *remoting.Command) (sched.Keys, buildFunc, error) {
	r, err := wire.DecodeAlterSyncStateSetRequest(req.ExtFields, req.Body)
	if n := len(r.SyncStateSet.SyncStateSet); err == nil && n > hardLimits.BrokersPerSet {
		err = invalidField("syncStateSet", fmt.Sprintf("must hold at most %d broker ids, the ceiling of %s (got %d)",
			hardLimits.BrokersPerSet, "controllerMaxBrokersPerSet", n))
	}
	return sched.SetKeys(r.BrokerName), func(s *state) (response, []event, error) { return s.AlterSyncStateSet(r, c.hb) }, err
}

// prepareRegister: an address change may grow the state (its builder
// reserves the growth, reserve.go).
func (c *Controller) prepareRegister(req *remoting.Command) (sched.Keys, buildFunc, error) {
	r, err := wire.DecodeRegisterBrokerRequest(req.ExtFields)
	return sched.SetKeys(r.BrokerName),
		func(s *state) (response, []event, error) { return s.registerBroker(r, c.hb, c.limits()) }, err
}

func (c *Controller) prepareReplicaInfo(req *remoting.Command) (sched.Keys, buildFunc, error) {
	r, err := wire.DecodeGetReplicaInfoRequest(req.ExtFields)
	return sched.SetKeys(r.BrokerName), func(s *state) (response, []event, error) {
		resp, err := s.GetReplicaInfo(r)
		return resp, nil, err
	}, err
}

// prepareSyncStateData reads the 1006 body, a JSON array of broker names;
// no body is an empty list (code 1 "not set any response code"). It is a
// read of those sets (readKeys), never global: a stranger's read must not
// hold every set's work back. More names than sets may exist (the hard
// ceiling of controllerMaxBrokerSets) are refused with 2005 before the
// task is queued; the task weighs its decoded names (namesBytes).
func (c *Controller) prepareSyncStateData(req *remoting.Command) (sched.Keys, buildFunc, error) {
	var names []string
	var err error
	if len(req.Body) > 0 {
		if names, err = wire.DecodeBrokerNames(req.Body); err != nil {
			err = &domainError{Kind: errSystem, Remark: "decode broker names: " + err.Error()}
		}
	}
	if n := len(names); n > hardLimits.BrokerSets {
		names, err = nil, invalidField("brokerNames", fmt.Sprintf("must list at most %d names, the ceiling of %s (got %d)",
			hardLimits.BrokerSets, "controllerMaxBrokerSets", n))
	}
	keys := sched.ReadKeys(names)
	keys.Weight = namesBytes(keys.Names)
	return keys, func(s *state) (response, []event, error) {
		resp, err := s.GetSyncStateData(keys.Names, c.hb)
		return resp, nil, err
	}, err
}

// prepareClean: a clean adds tombstones of its set and may fold them.
func (c *Controller) prepareClean(req *remoting.Command) (sched.Keys, buildFunc, error) {
	r, err := wire.DecodeCleanBrokerDataRequest(req.ExtFields)
	return sched.SetKeys(r.BrokerName), func(s *state) (response, []event, error) { return s.CleanBrokerData(r, c.hb) }, err
}

// prepareNextID: the first id of a set reads its tombstone and the floor.
func (c *Controller) prepareNextID(req *remoting.Command) (sched.Keys, buildFunc, error) {
	r, err := wire.DecodeGetNextBrokerIDRequest(req.ExtFields)
	return sched.SetKeys(r.BrokerName), func(s *state) (response, []event, error) { return s.GetNextBrokerID(r), nil, nil }, err
}

// prepareApplyID: a new id or set grows the state (its builder reserves
// the growth, reserve.go).
func (c *Controller) prepareApplyID(req *remoting.Command) (sched.Keys, buildFunc, error) {
	r, err := wire.DecodeApplyBrokerIDRequest(req.ExtFields)
	return sched.SetKeys(r.BrokerName), func(s *state) (response, []event, error) { return s.applyBrokerID(r, c.limits()) }, err
}

// limits are the bounds of the replicated state this node's builders
// enforce, read at use time (config.StateBounds), with the reservations
// of the entries in flight in the term the gate is open for.
func (c *Controller) limits() stateLimits {
	l := limitsOf(c.config().StateBounds)
	l.held, l.term = c.fsm.held, c.gate.term.Load()
	return l
}

// handleElectMaster serves 1002 from brokers and admins; after a code-0 reply
// the members are notified of the new master.
func (c *Controller) handleElectMaster(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	r, err := wire.DecodeElectMasterRequest(req.ExtFields)
	if err != nil {
		return c.respond(req, outcome{err: err}), nil
	}
	trigger := TriggerBroker
	if r.DesignateElect {
		trigger = TriggerAdmin
	}
	start := time.Now()
	keys := sched.SetKeys(r.BrokerName)
	keys.Weight = requestBytes(req)
	out := c.scheduleOn(keys, c.electionBuilder(r), requestTimeout)
	code, _ := responseCode(out.err)
	c.opts.observer.ElectionFinished(trigger, code, time.Since(start))
	if code == codeSuccess {
		c.notifyRoleChange(out.resp)
	}
	return c.respond(req, out), nil
}

// electionBuilder elects with the election options read at use time.
func (c *Controller) electionBuilder(r wire.ElectMasterRequest) buildFunc {
	return func(s *state) (response, []event, error) {
		opts := electOptions{EnableElectUncleanMaster: c.config().EnableElectUncleanMaster}
		return s.ElectMaster(r, c.hb, opts)
	}
}

// handleHeartbeat serves 904 on every node (never replicated).
func (c *Controller) handleHeartbeat(conn *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	c.opts.observer.HeartbeatReceived()
	r, err := wire.DecodeBrokerHeartbeatRequest(req.ExtFields)
	if err == nil {
		err = checkHeartbeat(r)
		c.noteRefused(conn, req, err)
	}
	if err == nil {
		id := ConnID(conn.ID())
		var newConn bool
		if newConn, err = c.hb.Beat(r, id); newConn {
			c.conns.LoadOrStore(id, conn)
		}
	}
	switch {
	case req.IsOneway():
		return nil, nil // brokers beat oneway (Java: invokeOneway): nothing would be written
	case err != nil:
		return c.respond(req, outcome{err: err}), nil
	}
	return c.newResponse(req, codeSuccess, heartbeatSuccessRemark), nil
}

// handleMetadata serves 1005 on every node.
func (c *Controller) handleMetadata(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	resp := c.newResponse(req, codeSuccess, "")
	resp.ExtFields = c.metadata()
	return resp, nil
}

// handleGetConfig serves 1010: the properties text sorted by key.
func (c *Controller) handleGetConfig(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	resp := c.newResponse(req, codeSuccess, "")
	resp.Body = c.config().Render()
	return resp, nil
}

// handleUpdateConfig serves 1009 locally: black-listed keys (the
// configured list plus the built-in identity, address, size and path keys
// of config) → 16 "Can not update config in black list." as Java's
// ControllerRequestProcessor answers; bad properties text, a value that does
// not parse or an invalid result → 1 with the reason; the result is
// persisted before it takes effect.
func (c *Controller) handleUpdateConfig(_ *remoting.Conn, req *remoting.Command) (*remoting.Command, error) {
	if len(req.Body) == 0 {
		return c.newResponse(req, codeSuccess, ""), nil
	}
	c.cfgMu.Lock()
	defer c.cfgMu.Unlock()
	next, err := c.config().ApplyUpdate(req.Body)
	if err == nil {
		err = c.opts.persist(next)
	}
	if err != nil {
		if ok, suppressed := c.cfgRefused.Allow(time.Now()); ok {
			c.logger.Warn("controller config update refused", "error", clip(err.Error()), "suppressed", suppressed)
		}
		return c.respond(req, outcome{err: configError(err)}), nil
	}
	c.cfg.Store(next)
	if ok, suppressed := c.cfgUpdated.Allow(time.Now()); ok {
		c.logger.Info("controller config updated", "body", clip(string(req.Body)), "bytes", len(req.Body),
			"suppressed", suppressed)
	}
	return c.newResponse(req, codeSuccess, ""), nil
}

// maxLoggedBytes bounds a request's text in a log line.
const maxLoggedBytes = 512

// clip cuts s to maxLoggedBytes, saying so.
func clip(s string) string {
	if len(s) <= maxLoggedBytes {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:maxLoggedBytes], len(s))
}

// configError maps config errors onto the codes Java answers.
func configError(err error) error {
	switch {
	case errors.Is(err, config.ErrBlackListed):
		return errNoPermission
	case errors.Is(err, config.ErrBadProperties):
		return &domainError{Kind: errSystem, Remark: "string2Properties error"}
	}
	return &domainError{Kind: errSystem, Remark: err.Error()}
}
