package metricstest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseValid(t *testing.T) {
	fs, err := Parse([]byte(`# HELP a_total Some \\ help
# TYPE a_total counter
a_total{x="1",y="q\"\n"} 2
a_total 1 1700000000
# TYPE h histogram
h_bucket{le="0.5"} 1
h_bucket{le="+Inf"} 2
h_sum 3.5
h_count 2
# TYPE g gauge
g NaN
# TYPE s summary
s{quantile="0.5"} 0.25
s_sum 1.5
s_count 4
`))
	require.NoError(t, err)
	require.Equal(t, 3.0, fs.Sum("a_total"))
	require.Equal(t, "q\"\n", fs.Find("a_total", "x", "1")[0].Labels["y"])
	require.Equal(t, "histogram", fs["h"].Type)
	require.Equal(t, 1.0, fs.Sum("h_bucket", "le", "0.5"))
	require.Equal(t, 2.0, fs.Sum("h_bucket", "le", "+Inf"))
	require.Equal(t, 3.5, fs.Sum("h_sum"))
	require.Equal(t, 0.25, fs.Sum("s", "quantile", "0.5"))
	require.Equal(t, 4.0, fs.Sum("s_count"))
}

func TestParseRejects(t *testing.T) {
	for name, text := range map[string]string{
		"no type":           "a 1\n",
		"bad name":          "# TYPE 1a gauge\n1a 1\n",
		"bad type":          "# TYPE a gaug\na 1\n",
		"foreign sample":    "# TYPE a gauge\nb 1\n",
		"split family":      "# TYPE a gauge\na{x=\"1\"} 1\n# TYPE b gauge\nb 1\n# TYPE a gauge\na 2\n",
		"duplicate series":  "# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n",
		"duplicate label":   "# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n",
		"bad escape":        "# TYPE a gauge\na{x=\"\\t\"} 1\n",
		"unterminated":      "# TYPE a gauge\na{x=\"1} 1\n",
		"no value":          "# TYPE a gauge\na{x=\"1\"}\n",
		"bad value":         "# TYPE a gauge\na 1x\n",
		"negative counter":  "# TYPE a_total counter\na_total -1\n",
		"histogram no inf":  "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n",
		"histogram count":   "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 1\n",
		"histogram decline": "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
		"histogram bare":    "# TYPE h histogram\nh 1\n",
		"missing comma":     "# TYPE a gauge\na{x=\"1\"y=\"2\"} 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(text))
			require.Error(t, err)
		})
	}
}
