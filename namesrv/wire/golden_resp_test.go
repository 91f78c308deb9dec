package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/javahash"
)

// reencode decodes a golden body with the decoder for its request code and
// encodes it again; ok is false for codes without a JSON body.
func reencode(t *testing.T, ex *exchange, body []byte) (out []byte, ok bool) {
	t.Helper()
	var err error
	switch ex.code {
	case 105, 217:
		r, e := DecodeTopicRouteData(body)
		err, out = e, AppendTopicRouteData(nil, r, routeFlavour(ex))
		if ex.code == 217 {
			out = AppendTopicRouteData(nil, r, FastjsonDefault)
		}
	case 106:
		ci, e := DecodeClusterInfo(body)
		err, out = e, AppendClusterInfo(nil, ci)
	case 206, 224, 304, 311, 312, 313:
		tl, e := DecodeTopicList(body)
		err, out = e, AppendTopicList(nil, tl)
	case 103, 219:
		kv, e := DecodeKVTable(body)
		err, out = e, AppendKVTable(nil, kv)
	case 901:
		g, e := DecodeBrokerMemberGroup(body)
		err, out = e, AppendBrokerMemberGroup(nil, g)
	case 322:
		dv, e := DecodeDataVersion(body)
		err, out = e, AppendDataVersion(nil, dv)
	default:
		return nil, false
	}
	require.NoError(t, err)
	return out, true
}

func TestGoldenResponseBodies(t *testing.T) {
	checked := 0
	for _, ex := range loadGolden(t) {
		if len(ex.rspBody) == 0 {
			continue
		}
		t.Run(ex.Case, func(t *testing.T) {
			out, ok := reencode(t, &ex, ex.rspBody)
			require.True(t, ok, "code %d has a body", ex.code)
			require.Equal(t, string(ex.rspBody), string(out))
			checked++
		})
	}
	require.GreaterOrEqual(t, checked, 20)
}

func TestGoldenRequestBodies(t *testing.T) {
	for _, ex := range loadGolden(t) {
		if len(ex.reqBody) == 0 || (ex.code != 217 && ex.code != 322) {
			continue
		}
		t.Run(ex.Case, func(t *testing.T) {
			out, _ := reencode(t, &ex, ex.reqBody)
			require.Equal(t, string(ex.reqBody), string(out))
		})
	}
}

func TestGoldenTopicListHashOrder(t *testing.T) {
	for _, ex := range loadGolden(t) {
		if ex.code != 206 && ex.code != 224 {
			continue
		}
		tl, err := DecodeTopicList(ex.rspBody)
		require.NoError(t, err)
		sorted := append([]string{}, tl.TopicList...)
		javahash.SortStrings(sorted, 16, true)
		require.Equal(t, tl.TopicList, sorted, ex.Case)
	}
}

func TestGoldenClusterInfoKeyOrder(t *testing.T) {
	for _, ex := range loadGolden(t) {
		if ex.code != 106 {
			continue
		}
		ci, err := DecodeClusterInfo(ex.rspBody)
		require.NoError(t, err)
		for _, names := range ci.ClusterAddrTable {
			sorted := append([]string(nil), names...)
			javahash.SortStrings(sorted, 16, false)
			require.Equal(t, names, sorted)
		}
	}
}
