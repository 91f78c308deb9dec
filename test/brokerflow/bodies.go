package brokerflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/remoting"
)

// SyncStateSet is the body of 1001, 1003, 1004 and 1008 (SyncStateSet.java).
type SyncStateSet struct {
	IDs   []int64 `json:"syncStateSet"`
	Epoch int32   `json:"syncStateSetEpoch"`
}

// DecodeSyncStateSet parses a SyncStateSet body; the ids come back sorted.
func DecodeSyncStateSet(body []byte) (SyncStateSet, error) {
	var ss SyncStateSet
	if err := json.Unmarshal(body, &ss); err != nil {
		return ss, fmt.Errorf("sync-state set body %q: %w", body, err)
	}
	slices.Sort(ss.IDs)
	return ss, nil
}

// Replica is one entry of a 1006 answer's replica lists.
type Replica struct {
	Alive   bool   `json:"alive"`
	Address string `json:"brokerAddress"`
	ID      int64  `json:"brokerId"`
}

// ReplicasInfo is one broker set of a 1006 answer (BrokerReplicasInfo).
type ReplicasInfo struct {
	InSync        []Replica `json:"inSyncReplicas"`
	NotInSync     []Replica `json:"notInSyncReplicas"`
	MasterAddress string    `json:"masterAddress"`
	MasterID      *int64    `json:"masterBrokerId"`
	MasterEpoch   int32     `json:"masterEpoch"`
	SSEpoch       int32     `json:"syncStateSetEpoch"`
}

// DecodeReplicasInfo returns the named set of a 1006 answer body.
func DecodeReplicasInfo(body []byte, name string) (ReplicasInfo, error) {
	var bi struct {
		Table map[string]ReplicasInfo `json:"replicasInfoTable"`
	}
	if err := json.Unmarshal(body, &bi); err != nil {
		return ReplicasInfo{}, fmt.Errorf("1006 body: %w", err)
	}
	ri, ok := bi.Table[name]
	if !ok {
		return ri, fmt.Errorf("1006 body has no broker set %s: %s", name, body)
	}
	return ri, nil
}

// String is a one-line summary: master, epochs, replicas (* = alive).
func (ri ReplicasInfo) String() string {
	master := "none"
	if ri.MasterID != nil {
		master = strconv.FormatInt(*ri.MasterID, 10)
	}
	return fmt.Sprintf("master=%s masterEpoch=%d ssEpoch=%d inSync=%s notInSync=%s",
		master, ri.MasterEpoch, ri.SSEpoch, replicaList(ri.InSync), replicaList(ri.NotInSync))
}

func replicaList(rs []Replica) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.FormatInt(r.ID, 10)
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
