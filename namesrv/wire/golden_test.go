package wire

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/goldenfile"
)

// exchange is one golden request/response pair with its frames split.
type exchange struct {
	goldenfile.Exchange

	code    int
	version int32
	ext     map[string]string
	reqBody []byte
	rspBody []byte
}

// loadGolden reads the golden exchanges, skipping the test when absent.
func loadGolden(t testing.TB) []exchange {
	t.Helper()
	var out []exchange
	for _, g := range goldenfile.Load(t, goldenfile.Namesrv) {
		ex := exchange{Exchange: g}
		parseRequest(t, &ex)
		out = append(out, ex)
	}
	require.NotEmpty(t, out)
	return out
}

// parseRequest fills code, version, ext and the bodies from the hex frames.
func parseRequest(t testing.TB, ex *exchange) {
	t.Helper()
	header, reqBody := splitFrame(t, ex.RequestHex)
	ex.reqBody = reqBody
	_, ex.rspBody = splitFrame(t, ex.ResponseHex)
	if header[0] == 1 {
		parseBinaryHeader(t, header[1:], ex)
		return
	}
	var h struct {
		Code      int               `json:"code"`
		Version   int32             `json:"version"`
		ExtFields map[string]string `json:"extFields"`
	}
	require.NoError(t, json.Unmarshal(header[1:], &h))
	ex.code, ex.version, ex.ext = h.Code, h.Version, h.ExtFields
}

// splitFrame returns the header (prefixed by its type byte) and the body.
func splitFrame(t testing.TB, h string) ([]byte, []byte) {
	t.Helper()
	frame, err := hex.DecodeString(h)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(frame), 8)
	word := binary.BigEndian.Uint32(frame[4:8])
	hl := int(word & 0xFFFFFF)
	require.LessOrEqual(t, 8+hl, len(frame))
	header := append([]byte{byte(word >> 24)}, frame[8:8+hl]...)
	return header, frame[8+hl:]
}

// parseBinaryHeader decodes the ROCKETMQ header fields the tests need.
func parseBinaryHeader(t testing.TB, h []byte, ex *exchange) {
	t.Helper()
	ex.code = int(int16(binary.BigEndian.Uint16(h)))
	ex.version = int32(int16(binary.BigEndian.Uint16(h[3:])))
	remarkLen := int(binary.BigEndian.Uint32(h[13:]))
	p := 17 + remarkLen
	extLen := int(binary.BigEndian.Uint32(h[p:]))
	ext := h[p+4 : p+4+extLen]
	ex.ext = map[string]string{}
	for len(ext) > 0 {
		kl := int(binary.BigEndian.Uint16(ext))
		k := string(ext[2 : 2+kl])
		vl := int(binary.BigEndian.Uint32(ext[2+kl:]))
		ex.ext[k] = string(ext[6+kl : 6+kl+vl])
		ext = ext[6+kl+vl:]
	}
}

// routeFlavour is the flavour the Java namesrv answers code 105 with.
func routeFlavour(ex *exchange) Flavour {
	if ex.ext["__ZONE_MODE"] == "true" && ex.ext["__ZONE_NAME"] != "" {
		return FastjsonDefault
	}
	if ex.version >= 401 || ex.ext["acceptStandardJsonOnly"] == "true" {
		return Standard
	}
	return FastjsonDefault
}

func TestGoldenRegisterBodies(t *testing.T) {
	n := 0
	for _, ex := range loadGolden(t) {
		if ex.code != 103 {
			continue
		}
		n++
		t.Run(ex.Case, func(t *testing.T) {
			compressed := ex.ext["compressed"] == "true"
			rb, err := DecodeRegisterBody(ex.reqBody, ex.version, compressed)
			require.NoError(t, err)
			require.Equal(t, int64(1700000000000), rb.DataVersion.Timestamp)
			require.Positive(t, rb.DataVersion.Counter)
			require.NotEmpty(t, rb.TopicConfigs)
			require.Equal(t, []string{}, rb.FilterServerList)
			for name, tc := range rb.TopicConfigs {
				require.Equal(t, name, tc.TopicName)
				require.Contains(t, []int32{6, 7}, tc.Perm)
				require.Equal(t, FilterSingleTag, tc.TopicFilterType)
			}
			crc, err := strconv.ParseInt(ex.ext["bodyCrc32"], 10, 32)
			require.NoError(t, err)
			if ex.Case == "registration with a wrong bodyCrc32" {
				require.NotEqual(t, int32(crc), CRC32(ex.reqBody))
			} else {
				require.Equal(t, int32(crc), CRC32(ex.reqBody))
			}
			if !compressed {
				again, err := EncodeRegisterBody(rb, ex.version, false)
				require.NoError(t, err)
				require.Equal(t, string(ex.reqBody), string(again))
			}
		})
	}
	require.Equal(t, 7, n)
}

func TestGoldenCompressedBody(t *testing.T) {
	for _, ex := range loadGolden(t) {
		if ex.code != 103 || ex.ext["compressed"] != "true" {
			continue
		}
		rb, err := DecodeRegisterBody(ex.reqBody, ex.version, true)
		require.NoError(t, err)
		require.Len(t, rb.TopicConfigs, 3)
		require.Equal(t, int32(2), rb.TopicConfigs["TopicC"].ReadQueueNums)
		require.Equal(t, int32(7), rb.TopicConfigs["OtherCluster"].Perm)
		require.Nil(t, rb.MappingInfos)
		return
	}
	t.Fatal("no compressed registration in golden file")
}
