package fakebroker

import (
	"context"
	"strconv"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// QueryDataVersion sends QUERY_DATA_VERSION (322) with the broker's
// DataVersion, as BrokerOuterAPI.needRegister does. changed is the
// NameServer's answer; stored is its copy of the DataVersion (nil when it
// has no live entry for the broker).
func (b *Broker) QueryDataVersion(ctx context.Context, ns string) (changed bool, stored *wire.DataVersion, err error) {
	c, err := b.Conn(ctx, ns)
	if err != nil {
		return false, nil, err
	}
	resp, err := c.Invoke(ctx, b.dataVersionRequest())
	if err != nil {
		return false, nil, err
	}
	if err := checkCode("query data version", resp); err != nil {
		return false, nil, err
	}
	changed, _ = resp.ExtBool("changed")
	if len(resp.Body) > 0 {
		if stored, err = wire.DecodeDataVersion(resp.Body); err != nil {
			return changed, nil, err
		}
	}
	return changed, stored, nil
}

// NeedRegister reports whether the broker must re-register with ns: the
// NameServer says changed, or holds another DataVersion (needRegister).
func (b *Broker) NeedRegister(ctx context.Context, ns string) (bool, error) {
	changed, stored, err := b.QueryDataVersion(ctx, ns)
	if err != nil {
		return false, err
	}
	return changed || stored == nil || *stored != b.DataVersion(), nil
}

func (b *Broker) dataVersionRequest() *remoting.Command {
	dv := b.DataVersion()
	return b.request(remoting.QueryDataVersion, b.identity(), wire.AppendDataVersion(nil, &dv))
}

// HeartbeatViaDataVersion sends QUERY_DATA_VERSION oneway, the liveness
// heartbeat of a 5.x broker with compatibleWithOldNameSrv=true (default).
func (b *Broker) HeartbeatViaDataVersion(ctx context.Context, ns string) error {
	c, err := b.Conn(ctx, ns)
	if err != nil {
		return err
	}
	return c.InvokeOneway(b.dataVersionRequest())
}

// Heartbeat sends BROKER_HEARTBEAT (904) oneway, the heartbeat of an
// acting-master broker (header clusterName, brokerAddr, brokerName).
func (b *Broker) Heartbeat(ctx context.Context, ns string) error {
	c, err := b.Conn(ctx, ns)
	if err != nil {
		return err
	}
	ext := map[string]string{
		"clusterName": b.cfg.ClusterName,
		"brokerAddr":  b.addr,
		"brokerName":  b.cfg.BrokerName,
		"brokerId":    strconv.FormatInt(b.cfg.BrokerID, 10),
	}
	return c.InvokeOneway(b.request(remoting.BrokerHeartbeat, ext, nil))
}
