package ctlbroker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/rmqgo/nameserver/namesrv/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// MasterID is the brokerId a master registers with the NameServers
// (MixAll.MASTER_ID); a slave registers with its controller-assigned id.
const MasterID int64 = 0

// RegisterNameServers sends REGISTER_BROKER (103) to every NameServer, as
// a controller-mode broker does after a role change: brokerID is MasterID
// or the broker's own id, and the DataVersion's stateVersion is the
// masterEpoch. It returns the answers in NameServers order.
func (b *Broker) RegisterNameServers(ctx context.Context, brokerID int64, masterEpoch int32) ([]*remoting.Command, error) {
	req, err := b.registerRequest(brokerID, masterEpoch)
	if err != nil {
		return nil, err
	}
	var errs []error
	resps := make([]*remoting.Command, len(b.cfg.NameServers))
	for i, ns := range b.cfg.NameServers {
		resp, err := b.Invoke(ctx, ns, req.Code, req.ExtFields, req.Body)
		if err == nil {
			resps[i], err = resp, expect("register broker (103) to "+ns, resp, remoting.Success)
		}
		errs = append(errs, err)
	}
	return resps, errors.Join(errs...)
}

// registerRequest builds the 103 a Java 5.3 broker sends
// (BrokerOuterAPI.registerBrokerAll) with its system topics.
func (b *Broker) registerRequest(brokerID int64, masterEpoch int32) (*remoting.Command, error) {
	b.mu.Lock()
	b.nsVersion++
	dv := wire.DataVersion{Counter: b.nsVersion, StateVersion: int64(masterEpoch), Timestamp: time.Now().UnixMilli()}
	b.mu.Unlock()
	rb := &wire.RegisterBody{DataVersion: dv, TopicConfigs: b.systemTopics(), FilterServerList: []string{}}
	data, err := wire.EncodeRegisterBody(rb, remoting.CurrentVersion, false)
	if err != nil {
		return nil, err
	}
	ext := map[string]string{"brokerAddr": b.addr, "brokerId": strconv.FormatInt(brokerID, 10),
		"brokerName": b.cfg.Name, "clusterName": b.cfg.Cluster, "haServerAddr": b.haAddr(),
		"enableActingMaster": "false", "compressed": "false",
		"bodyCrc32": strconv.FormatInt(int64(wire.CRC32(data)), 10)}
	return remoting.NewRequest(remoting.RegisterBroker, ext, data), nil
}

// haAddr is the haServerAddr announced: the listen port + 1, never served.
func (b *Broker) haAddr() string {
	host, port, _ := net.SplitHostPort(b.addr)
	p, _ := strconv.Atoi(port)
	return net.JoinHostPort(host, strconv.Itoa(p+1))
}

// systemTopics are the topics every Java broker registers
// (TopicConfigManager): its cluster, its name, SELF_TEST_TOPIC and
// rmq_sys_SYNC_BROKER_MEMBER_<name>.
func (b *Broker) systemTopics() map[string]wire.TopicConfig {
	const rw = wire.PermRead | wire.PermWrite
	m := map[string]wire.TopicConfig{}
	for name, perm := range map[string]int32{b.cfg.Cluster: rw | wire.PermInherit, b.cfg.Name: rw | wire.PermInherit,
		"SELF_TEST_TOPIC": rw, "rmq_sys_SYNC_BROKER_MEMBER_" + b.cfg.Name: wire.PermInherit} {
		m[name] = wire.TopicConfig{TopicName: name, ReadQueueNums: 1, WriteQueueNums: 1, Perm: perm,
			TopicFilterType: "SINGLE_TAG", Attributes: map[string]string{}}
	}
	return m
}

// MemberGroup asks the NameServer ns for the broker set's members
// (GET_BROKER_MEMBER_GROUP, 901): brokerId → address.
func (b *Broker) MemberGroup(ctx context.Context, ns string) (map[int64]string, error) {
	resp, err := b.Invoke(ctx, ns, remoting.GetBrokerMemberGroup, b.setName(), nil)
	if err != nil {
		return nil, err
	}
	if err := expect("get broker member group (901) from "+ns, resp, remoting.Success); err != nil {
		return nil, err
	}
	g, err := wire.DecodeBrokerMemberGroup(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("901 body from %s: %w", ns, err)
	}
	return g.BrokerAddrs, nil
}
