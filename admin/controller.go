package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// ErrNoLeader means the controllers answered but none named a leader.
var ErrNoLeader = errors.New("the controller has no leader")

// ControllerMetadata is the CONTROLLER_GET_METADATA_INFO (1005) reply
// header of one controller node.
type ControllerMetadata struct {
	Addr       string `json:"addr"` // the node that answered
	Group      string `json:"group"`
	LeaderID   string `json:"controllerLeaderId"`
	LeaderAddr string `json:"controllerLeaderAddress"`
	IsLeader   bool   `json:"isLeader"`
	Peers      string `json:"peers"` // "n0:host:port;n1:host:port;"
	// Versions, sent by nodes past v1.0.0 (empty from v1.0.0 and Java):
	// the binary's release, the newest Controller format it reads and the
	// group's replicated cluster version (docs/controller.md).
	BinaryVersion  string `json:"binaryVersion,omitempty"`
	FormatVersion  string `json:"controllerFormatVersion,omitempty"`
	ClusterVersion string `json:"controllerClusterVersion,omitempty"`
	// MembersDrift is how the node's controllerRaftPeers differ from the
	// Raft configuration it holds ("" when they agree; members.go).
	MembersDrift string `json:"raftMembersDrift,omitempty"`
}

// PeerList splits Peers on ';' (empty items dropped).
func (m *ControllerMetadata) PeerList() []string { return SplitAddrs(m.Peers) }

// ElectResult is the CONTROLLER_ELECT_MASTER (1002) reply: its header and
// the member group and sync-state set of its body.
type ElectResult struct {
	MasterBrokerID    int64            `json:"masterBrokerId"`
	MasterAddress     string           `json:"masterAddress"`
	MasterEpoch       int32            `json:"masterEpoch"`
	SyncStateSetEpoch int32            `json:"syncStateSetEpoch"`
	BrokerAddrs       map[int64]string `json:"brokerAddrs,omitempty"`
	SyncStateSet      []int64          `json:"syncStateSet,omitempty"`
}

// ControllerMetadata asks one controller CONTROLLER_GET_METADATA_INFO (1005).
func (c *Client) ControllerMetadata(ctx context.Context, addr string) (*ControllerMetadata, error) {
	resp, err := c.call(ctx, addr, remoting.ControllerGetMetadataInfo, nil, nil)
	if err != nil {
		return nil, err
	}
	ext := resp.ExtFields
	isLeader, _ := resp.ExtBool("isLeader")
	return &ControllerMetadata{Addr: addr, Group: ext["group"], LeaderID: ext["controllerLeaderId"],
		LeaderAddr: ext["controllerLeaderAddress"], IsLeader: isLeader, Peers: ext["peers"],
		BinaryVersion: ext["binaryVersion"], FormatVersion: ext["controllerFormatVersion"],
		ClusterVersion: ext["controllerClusterVersion"], MembersDrift: ext["raftMembersDrift"]}, nil
}

// FindLeader asks the controllers in order for metadata and returns the
// first answer naming a leader. When every reachable controller answers
// without one the error wraps ErrNoLeader; when none is reachable it
// wraps ErrUnreachable.
func (c *Client) FindLeader(ctx context.Context, addrs []string) (*ControllerMetadata, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no controller address: use -a \"host:port;host:port\"")
	}
	var errs []error
	answered := false
	for _, a := range addrs {
		md, err := c.ControllerMetadata(ctx, a)
		if err == nil && md.LeaderAddr != "" {
			return md, nil
		}
		if err == nil {
			answered = true
			err = fmt.Errorf("%s names no leader", a)
		}
		errs = append(errs, err)
	}
	if answered {
		return nil, fmt.Errorf("%w: %w", ErrNoLeader, errors.Join(errs...))
	}
	return nil, errors.Join(errs...)
}

// SyncStateData asks the leader CONTROLLER_GET_SYNC_STATE_DATA (1006).
func (c *Client) SyncStateData(ctx context.Context, leader string, brokerNames []string) (*wire.BrokerReplicasInfo, error) {
	names, err := json.Marshal(brokerNames)
	if err != nil {
		return nil, err
	}
	resp, err := c.call(ctx, leader, remoting.ControllerGetSyncStateData, nil, names)
	if err != nil {
		return nil, err
	}
	info, err := wire.DecodeBrokerReplicasInfo(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot decode sync-state data: %w", leader, err)
	}
	return &info, nil
}

// ElectMaster asks the leader CONTROLLER_ELECT_MASTER (1002) as an admin
// (designateElect=true) to make brokerID the master of brokerName.
func (c *Client) ElectMaster(ctx context.Context, leader, cluster, brokerName string, brokerID int64) (*ElectResult, error) {
	req := wire.ElectMasterRequest{ClusterName: cluster, BrokerName: brokerName, BrokerID: brokerID,
		DesignateElect: true, InvokeTime: time.Now().UnixMilli()}
	resp, err := c.call(ctx, leader, remoting.ControllerElectMaster, req.ExtFields(), nil)
	if err != nil {
		return nil, err
	}
	return decodeElect(leader, resp)
}

func decodeElect(addr string, resp *remoting.Command) (*ElectResult, error) {
	r := &ElectResult{MasterAddress: resp.ExtFields["masterAddress"]}
	r.MasterBrokerID, _, _ = resp.ExtInt64("masterBrokerId")
	r.MasterEpoch, _, _ = resp.ExtInt32("masterEpoch")
	r.SyncStateSetEpoch, _, _ = resp.ExtInt32("syncStateSetEpoch")
	if len(resp.Body) == 0 {
		return r, nil
	}
	b, err := wire.DecodeElectMasterResponseBody(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot decode elect master body: %w", addr, err)
	}
	if b.BrokerMemberGroup != nil {
		r.BrokerAddrs = b.BrokerMemberGroup.BrokerAddrs
	}
	r.SyncStateSet = b.SyncStateSet
	return r, nil
}

// CleanBrokerData asks the leader CLEAN_BROKER_DATA (1011). ids is
// "1;2;3" or empty; cleanLiving wipes the whole set.
func (c *Client) CleanBrokerData(ctx context.Context, leader, cluster, brokerName, ids string, cleanLiving bool) error {
	req := wire.CleanBrokerDataRequest{ClusterName: cluster, BrokerName: brokerName, BrokerControllerIDsToClean: ids,
		IsCleanLivingBroker: cleanLiving, InvokeTime: time.Now().UnixMilli()}
	_, err := c.call(ctx, leader, remoting.CleanBrokerData, req.ExtFields(), nil)
	return err
}

// ControllerConfig asks one controller GET_CONTROLLER_CONFIG (1010).
func (c *Client) ControllerConfig(ctx context.Context, addr string) ([]Property, error) {
	resp, err := c.call(ctx, addr, remoting.GetControllerConfig, nil, nil)
	if err != nil {
		return nil, err
	}
	return ParseProperties(resp.Body), nil
}

// UpdateControllerConfig asks one controller UPDATE_CONTROLLER_CONFIG (1009).
func (c *Client) UpdateControllerConfig(ctx context.Context, addr string, props []Property) error {
	_, err := c.call(ctx, addr, remoting.UpdateControllerConfig, nil, FormatProperties(props))
	return err
}

// ParseBrokerIDs checks a "1;2;3" id list as cleanBrokerMetadata -b does.
func ParseBrokerIDs(ids string) error {
	for _, s := range strings.Split(ids, ";") {
		if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil {
			return fmt.Errorf("please set the option <brokerControllerIdsToClean> according to the format: %w", err)
		}
	}
	return nil
}
