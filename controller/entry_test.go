//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEntryRoundTrip(t *testing.T) {
	events := []event{
		applyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "a", NewBrokerID: 1, RegisterCheckCode: "a;1"},
		electMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1},
		alterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1, 2}},
		cleanBrokerDataEvent{BrokerName: "b", IDs: []int64{2}},
		cleanBrokerDataEvent{BrokerName: "b"},
		updateBrokerAddressEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "z", BrokerID: 1},
		readEvent{},
	}
	for _, ev := range events {
		data, err := encodeEntry(ev)
		require.NoError(t, err)
		require.Equal(t, byte(ev.Type()), data[0])
		back, err := decodeEntry(data)
		require.NoError(t, err)
		require.Equal(t, []event{ev}, back)
	}
	data, err := encodeEntry(events...)
	require.NoError(t, err)
	back, err := decodeEntry(data)
	require.NoError(t, err)
	require.Equal(t, events, back)
	noop, err := encodeEntry()
	require.NoError(t, err)
	back, err = decodeEntry(noop)
	require.NoError(t, err)
	require.Empty(t, back)
}

func FuzzDecodeEntry(f *testing.F) {
	for _, evs := range [][]event{nil, {readEvent{}}, {electMasterEvent{BrokerName: "b"}, readEvent{}}} {
		data, err := encodeEntry(evs...)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := decodeEntry(data)
		if err != nil {
			return
		}
		st := newState()
		for _, ev := range events {
			_ = ev.apply(st)
		}
	})
}
