package monotime

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wallUses are the lines of the servers and tools allowed to turn a time
// into wall-clock numbers (file: trimmed line: why): none of them decides
// liveness, idle, expiry or a reload interval.
var wallUses = map[string]map[string]string{
	"admin/controller.go": {
		"DesignateElect: true, InvokeTime: time.Now().UnixMilli()}":             "invokeTime on the wire",
		"IsCleanLivingBroker: cleanLiving, InvokeTime: time.Now().UnixMilli()}": "invokeTime on the wire",
	},
	"cmd/mqadmin/cluster.go": {
		"s.hour = float64(time.Now().UnixMilli()-ts) / 1000 / 60 / 60": "display of a broker's wall timestamp",
	},
	"config/filemode.go": {
		`name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatInt(time.Now().UnixNano()+int64(i), 36))`: "a temporary file name",
	},
	"controller/heartbeat.go": {
		"func (m *heartbeatManager) wallMillis() int64 { return m.opts.Clock.Now().UnixMilli() }": "LastUpdateMillis, display only",
	},
	"remoting/conn_io.go": {
		"_ = c.nc.SetReadDeadline(time.Unix(1, 0))": "a deadline in the past wakes a draining read",
	},
}

// wallNumbers matches a time turned into wall-clock numbers, or built
// from them (which has no monotonic reading).
var wallNumbers = regexp.MustCompile(`\.Unix(Milli|Micro|Nano)?\(\)|time\.Unix(Milli|Micro)?\(`)

// TestNoWallClockDecisions keeps wall-clock numbers out of the module's
// non-test code outside wallUses (test/ and tools/ are test harnesses and
// load generators): liveness, idle, expiry and reload decisions use
// monotime readings or time.Time values carrying Go's monotonic reading.
func TestNoWallClockDecisions(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test" || rel == "tools" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if wallNumbers.MatchString(line) && wallUses[rel][line] == "" {
				found = append(found, rel+": "+line+" (line "+strconv.Itoa(i+1)+")")
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, found, "wall-clock numbers outside wallUses: decide on monotime, or add the line with its reason")
}
