//go:build embedded_controller

package controller

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEntryRoundTrip(t *testing.T) {
	events := []Event{
		ApplyBrokerIDEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "a", NewBrokerID: 1, RegisterCheckCode: "a;1"},
		ElectMasterEvent{NewMasterElected: true, BrokerName: "b", NewMasterBrokerID: 1},
		AlterSyncStateSetEvent{BrokerName: "b", NewSyncStateSet: []int64{1, 2}},
		CleanBrokerDataEvent{BrokerName: "b", IDs: []int64{2}},
		CleanBrokerDataEvent{BrokerName: "b"},
		UpdateBrokerAddressEvent{ClusterName: "c", BrokerName: "b", BrokerAddress: "z", BrokerID: 1},
		ReadEvent{},
	}
	for _, ev := range events {
		data, err := EncodeEntry(ev)
		require.NoError(t, err)
		require.Equal(t, byte(ev.Type()), data[0])
		back, err := DecodeEntry(data)
		require.NoError(t, err)
		require.Equal(t, []Event{ev}, back)
	}
	data, err := EncodeEntry(events...)
	require.NoError(t, err)
	back, err := DecodeEntry(data)
	require.NoError(t, err)
	require.Equal(t, events, back)
	noop, err := EncodeEntry()
	require.NoError(t, err)
	back, err = DecodeEntry(noop)
	require.NoError(t, err)
	require.Empty(t, back)
}

func FuzzDecodeEntry(f *testing.F) {
	for _, evs := range [][]Event{nil, {ReadEvent{}}, {ElectMasterEvent{BrokerName: "b"}, ReadEvent{}}} {
		data, err := EncodeEntry(evs...)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := DecodeEntry(data)
		if err != nil {
			return
		}
		st := NewState()
		for _, ev := range events {
			_ = ev.apply(st)
		}
	})
}
