//go:build embedded_controller

package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rmqgo/nameserver/internal/version"
	"github.com/rmqgo/nameserver/remoting"
)

// The leader's cluster-version duty (docs/controller.md, "Versions and
// upgrades"): every poll interval it asks each other server of the Raft
// configuration for the newest format it reads (1005, extFormatVersion;
// a node that does not say reads format 1, as v1.0.0), and when the
// lowest of them and its own is above the cluster version it appends a
// clusterVersionEvent. With aclEnable the poll is signed with
// controllerAccessKey's account (peerSigner). An unreachable server, one
// that denies the poll, or one whose answer does not parse, holds the
// version where it is. Nothing lowers it.
const (
	// defaultVersionPoll is how often the leader asks the group.
	defaultVersionPoll = 2 * time.Second
	// versionAskTimeout bounds one 1005 to a peer.
	versionAskTimeout = 2 * time.Second
)

// 1005 reply fields of ours, beside Java's (Java ignores unknown fields).
const (
	extBinaryVersion  = "binaryVersion"
	extFormatVersion  = "controllerFormatVersion"
	extClusterVersion = "controllerClusterVersion"
)

// withVersionPoll sets the leader's poll interval (tests).
func withVersionPoll(d time.Duration) Option { return func(o *options) { o.versionPoll = d } }

// addVersionFields adds this node's versions to a 1005 reply.
func (c *Controller) addVersionFields(m map[string]string) {
	m[extBinaryVersion] = version.Version
	m[extFormatVersion] = strconv.Itoa(c.fsm.readsFormat())
	m[extClusterVersion] = strconv.Itoa(c.fsm.ClusterVersion())
}

// raiseClusterVersion is the leader duty loop; it ends with ctx (the
// leader's term).
func (c *Controller) raiseClusterVersion(ctx context.Context) {
	every := c.opts.versionPoll
	if every <= 0 {
		every = defaultVersionPoll
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	held := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !c.IsReadyLeader() {
			continue
		}
		why := c.tryRaise(ctx)
		c.versionRounds.Add(1)
		if why != held && why != "" {
			c.logger.Info("cluster version held", "cluster_version", c.fsm.ClusterVersion(), "reason", why)
		}
		held = why
	}
}

// tryRaise raises the cluster version to the group's lowest format when
// that is higher; it returns why it did not ("" when there was nothing to
// do or it raised).
func (c *Controller) tryRaise(ctx context.Context) string {
	cur := c.fsm.ClusterVersion()
	if cur >= c.fsm.readsFormat() {
		return ""
	}
	target, who, err := c.groupFormat(ctx)
	if err != nil {
		return err.Error()
	}
	if target <= cur {
		return fmt.Sprintf("server %s reads up to format %d", who, target)
	}
	entry, err := encodeEntry(clusterVersionEvent{Version: target})
	if err == nil {
		_, err = c.node.Apply(ctx, entry)
	}
	if err != nil {
		return "append failed: " + err.Error()
	}
	c.logger.Info("cluster version raised", "from", cur, "to", target)
	return ""
}

// groupFormat is the lowest newest-format of this node and every other
// server of the Raft configuration, and the server that reads it.
func (c *Controller) groupFormat(ctx context.Context) (int, string, error) {
	f := c.node.Raft().GetConfiguration()
	if err := f.Error(); err != nil {
		return 0, "", err
	}
	sign, err := c.peerSigner(versionPoll())
	if err != nil {
		return 0, "", err
	}
	low, who := c.fsm.readsFormat(), c.node.ID()
	for _, s := range f.Configuration().Servers {
		if s.ID == raft.ServerID(c.node.ID()) {
			continue
		}
		addr := c.remotingAddrOf(string(s.ID))
		if addr == "" {
			return 0, "", fmt.Errorf("server %s has no controllerDLegerPeers address", s.ID)
		}
		peer, err := c.askFormat(ctx, addr, sign)
		if err != nil {
			return 0, "", fmt.Errorf("server %s (%s): %w", s.ID, addr, err)
		}
		if peer < low {
			low, who = peer, string(s.ID)
		}
	}
	return low, who, nil
}

// versionPoll is the request the leader polls each node with (1005).
func versionPoll() *remoting.Command {
	return remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil)
}

// askFormat asks one node for the newest format it reads (versionPoll),
// signed by sign when not nil (peerSigner).
func (c *Controller) askFormat(ctx context.Context, addr string, sign func(*remoting.Command)) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, versionAskTimeout)
	defer cancel()
	opts := remoting.ClientOptions{Logger: c.logger, Sign: sign}
	if c.notifier.tls != nil {
		opts.TLS = c.notifier.tls()
	}
	client, err := remoting.Dial(ctx, addr, opts)
	if err != nil {
		return 0, err
	}
	defer client.Close()
	resp, err := client.Invoke(ctx, versionPoll())
	if err != nil {
		return 0, err
	}
	v, err := formatOf(resp)
	if err != nil && sign == nil && resp.Code == codeNoPermission {
		err = fmt.Errorf("%w%s", err, unsignedHint)
	}
	return v, err
}

// formatOf parses the format field of a 1005 reply: absent is format 1
// (v1.0.0 does not send it).
func formatOf(resp *remoting.Command) (int, error) {
	if resp.Code != codeSuccess {
		return 0, fmt.Errorf("1005 answered code %d: %s", resp.Code, resp.Remark)
	}
	s, ok := resp.ExtFields[extFormatVersion]
	if !ok {
		return formatV1, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < formatV1 || v > maxClusterVersion {
		return 0, errors.New(extFormatVersion + " must be an integer in 1..65536")
	}
	return v, nil
}
