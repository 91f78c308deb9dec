package ctlbroker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/controller/wire"
	"github.com/rmqgo/nameserver/remoting"
)

// DecodeReplicasInfo returns the named set of a 1006 answer body.
func DecodeReplicasInfo(body []byte, name string) (wire.ReplicasInfo, error) {
	bi, err := wire.DecodeBrokerReplicasInfo(body)
	if err != nil {
		return wire.ReplicasInfo{}, fmt.Errorf("1006 body: %w", err)
	}
	ri, ok := bi.ReplicasInfoTable[name]
	if !ok {
		return ri, fmt.Errorf("1006 body has no broker set %s: %s", name, body)
	}
	return ri, nil
}

// replicasText is a one-line summary of a 1006 set: master, epochs,
// replicas (* = alive).
func replicasText(ri wire.ReplicasInfo) string {
	master := "none"
	if ri.MasterBrokerID != nil {
		master = strconv.FormatInt(*ri.MasterBrokerID, 10)
	}
	return fmt.Sprintf("master=%s masterEpoch=%d ssEpoch=%d inSync=%s notInSync=%s",
		master, ri.MasterEpoch, ri.SyncStateSetEpoch, replicaList(ri.InSyncReplicas), replicaList(ri.NotInSyncReplicas))
}

func replicaList(rs []wire.ReplicaIdentity) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.FormatInt(r.BrokerID, 10)
		if r.Alive {
			parts[i] += "*"
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// MasterView is the master fields of a 1002, 1003, 1004 or 1008 header.
type MasterView struct {
	ID      int64 // 0 when absent
	Address string
	Epoch   int32
	SSEpoch int32 // absent from 1004
}

// ReadMaster parses the master fields of resp's header.
func ReadMaster(cmd *remoting.Command) (MasterView, error) {
	var v MasterView
	var err error
	if v.ID, _, err = cmd.ExtInt64("masterBrokerId"); err != nil {
		return v, err
	}
	if v.Epoch, _, err = cmd.ExtInt32("masterEpoch"); err != nil {
		return v, err
	}
	if v.SSEpoch, _, err = cmd.ExtInt32("syncStateSetEpoch"); err != nil {
		return v, err
	}
	v.Address = cmd.ExtFields["masterAddress"]
	return v, nil
}

// String is "id@address masterEpoch=n ssEpoch=m".
func (v MasterView) String() string {
	return fmt.Sprintf("%d@%s masterEpoch=%d ssEpoch=%d", v.ID, v.Address, v.Epoch, v.SSEpoch)
}
