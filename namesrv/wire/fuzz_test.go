package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/goldenfile"
)

// goldenBodies returns the golden request and response bodies as seeds.
func goldenBodies(t *testing.F) (reg [][]byte, other [][]byte) {
	if _, err := goldenfile.Path(goldenfile.Namesrv); err != nil {
		return nil, nil
	}
	for _, ex := range loadGolden(t) {
		if ex.code == 103 {
			reg = append(reg, ex.reqBody)
		}
		if len(ex.rspBody) > 0 {
			other = append(other, ex.rspBody)
		}
	}
	return reg, other
}

func FuzzDecodeRegisterBody(f *testing.F) {
	reg, _ := goldenBodies(f)
	for _, b := range reg {
		f.Add(b, int32(479), false)
		f.Add(b, int32(36), false)
	}
	for _, v := range []int32{36, 412, 479} {
		for _, c := range []bool{false, true} {
			b, err := EncodeRegisterBody(sampleRegister(3), v, c)
			require.NoError(f, err)
			f.Add(b, v, c)
		}
	}
	f.Add([]byte(`{"topicConfigSerializeWrapper":{"topicConfigTable":{1:{'perm':"7"}}}}`), int32(479), false)
	f.Fuzz(func(t *testing.T, body []byte, version int32, compressed bool) {
		rb, err := DecodeRegisterBodyLimit(body, version, compressed, 1<<20)
		if err != nil {
			return
		}
		once := reencodeRegister(t, rb, version, compressed)
		twice := reencodeRegister(t, once, version, compressed)
		require.Equal(t, once, twice)
	})
}

// reencodeRegister encodes rb and decodes the result, which must succeed.
func reencodeRegister(t *testing.T, rb *RegisterBody, version int32, compressed bool) *RegisterBody {
	body, err := EncodeRegisterBody(rb, version, compressed)
	require.NoError(t, err)
	back, err := DecodeRegisterBody(body, version, compressed)
	require.NoError(t, err, "%q", body)
	return back
}

func FuzzDecodeInflatedRegisterBody(f *testing.F) {
	f.Add(rawBody(2, []string{"A 1 2 6 SINGLE_TAG {}", "B 3 4 2 MULTI_TAG {\"k\":\"v\"}"}, "[]"), true)
	f.Add(rawBody(1, []string{"C 1 1 6 SINGLE_TAG"}, "null"), false)
	withMap := rawBody(0, nil, `["x"]`)
	f.Add(appendMappingSection(withMap[:len(withMap)-4], sampleRegister(1).MappingInfos), true)
	f.Fuzz(func(t *testing.T, raw []byte, withMapping bool) {
		rb, err := decodeInflated(raw, withMapping)
		if err != nil {
			return
		}
		version := int32(412)
		if withMapping {
			version = 479
		}
		once := reencodeRegister(t, rb, version, true)
		require.Equal(t, once, reencodeRegister(t, once, version, true))
	})
}

func FuzzDecodeTopicRouteData(f *testing.F) {
	_, other := goldenBodies(f)
	for _, b := range other {
		f.Add(b)
	}
	for _, s := range []string{exampleRouteDefault, exampleRouteStandard, exampleFullStandard,
		exampleFullDefault, exampleClusterInfo, `{'queueDatas':[{perm:"6"}],}`,
		`{"topicQueueMappingByBroker":{"b":{"scope":"","currIdMap":null}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := DecodeTopicRouteData(body)
		if err != nil {
			return
		}
		for _, fl := range []Flavour{FastjsonDefault, Standard} {
			// A null currIdMap is left out and read back as Java's
			// default, an empty one: the second encoding is the fixed point.
			out := AppendTopicRouteData(nil, r, fl)
			back, err := DecodeTopicRouteData(out)
			require.NoError(t, err, "%s", out)
			out = AppendTopicRouteData(nil, back, fl)
			back, err = DecodeTopicRouteData(out)
			require.NoError(t, err, "%s", out)
			require.Equal(t, string(out), string(AppendTopicRouteData(nil, back, fl)))
		}
	})
}
