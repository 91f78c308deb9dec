package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rmqgo/nameserver/internal/version"
)

// BuildInfoName is the family that names the running binary:
// 1 labelled with its release version, the VCS revision it was built
// from and the newest Controller format it reads (docs/controller.md, "Versions and upgrades").
const BuildInfoName = "rocketmq_build_info"

// newBuildInfo is the constant BuildInfoName gauge of this binary.
func newBuildInfo() Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: BuildInfoName,
		Help: "1, labelled with the binary's version, VCS revision and the newest Controller format it reads.",
		ConstLabels: prometheus.Labels{"version": version.Version, "revision": version.Revision(),
			"controller_format": strconv.Itoa(version.ControllerFormat)}},
		func() float64 { return 1 })
}
