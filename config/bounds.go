package config

import "reflect"

// GiB is one gibibyte.
const GiB = 1 << 30

// bound is the accepted range of one numeric key, both ends included.
type bound struct{ lo, hi int64 }

// numericBounds gives every int and long key of NamesrvConfig and
// ControllerConfig a lower and an upper bound. Validate checks them at
// startup and on every remote update alike, so no value accepted once can
// stop the node from starting again (a queue capacity of 2^31-1 would make
// a channel of that many entries at the next start). Java bounds none of
// these; every default and every value of Java's sample files is inside.
// Sizes are bytes, intervals and timeouts ms unless the key says Seconds.
var numericBounds = map[string]bound{
	// NamesrvConfig.
	"clientRequestThreadPoolNums":          {1, 1024},
	"clientRequestThreadPoolQueueCapacity": {1, 1_000_000},
	"defaultThreadPoolNums":                {1, 1024},
	"defaultThreadPoolQueueCapacity":       {1, 1_000_000},
	"scanNotActiveBrokerInterval":          {100, 600_000},
	"unRegisterBrokerQueueCapacity":        {1, 100_000},
	"waitSecondsForService":                {0, 600},
	// NettyServerConfig.
	"listenPort":                      {0, 65535},
	"serverWorkerThreads":             {1, 1024},
	"serverCallbackExecutorThreads":   {0, 1024},
	"serverSelectorThreads":           {1, 1024},
	"serverOnewaySemaphoreValue":      {1, 65535},
	"serverAsyncSemaphoreValue":       {1, 65535},
	"serverChannelMaxIdleTimeSeconds": {0, 3600}, // 0: 120 s
	"serverSocketSndBufSize":          {0, 64 * MiB},
	"serverSocketRcvBufSize":          {0, 64 * MiB},
	"writeBufferHighWaterMark":        {0, 64 * MiB},
	"writeBufferLowWaterMark":         {0, 64 * MiB},
	"serverSocketBacklog":             {1, 65535},
	"shutdownWaitTimeSeconds":         {0, 600},
	// Our extras.
	"frameMaxLength":                       {MiB, GiB},
	"serverChannelMaxPendingResponseBytes": {64 << 10, GiB},
	"serverPartialFrameBudgetBytes":        {MiB, 4 * GiB},
	"serverMaxConnections":                 {1, 1 << 20},
	"metricsPromExporterPort":              {0, 65535},
	"readyAfterBrokerRegistrationSeconds":  {0, 600},
	// warmup.go
	"warmupForwardSeconds": {0, 600},
	// listeners.go
	"metricsMaxConnections":               {1, 65536},
	"metricsReadHeaderTimeoutSeconds":     {1, 600},
	"metricsReadTimeoutSeconds":           {1, 600},
	"metricsWriteTimeoutSeconds":          {1, 600},
	"metricsIdleTimeoutSeconds":           {1, 3600},
	"metricsMaxHeaderBytes":               {4096, MiB},
	"controllerRaftMaxInboundConnections": {16, 65536},
	// ControllerConfig.
	"controllerThreadPoolNums":                 {1, 1024},
	"controllerRequestThreadPoolQueueCapacity": {1, 1_000_000},
	"mappedFileSize":                           {4096, GiB},
	"electMasterMaxRetryCount":                 {1, MaxElectMasterMaxRetryCount},
	"scanInactiveMasterInterval":               {100, 600_000},
	"metricGrpcExporterTimeOutInMills":         {1, 600_000},
	"metricGrpcExporterIntervalInMills":        {1000, 86_400_000},
	"metricLoggingExporterIntervalInMills":     {1000, 86_400_000},
	// controller_state.go: the upper ends are Apply's hard ceilings.
	"controllerMaxBrokerSets":    {1, MaxControllerBrokerSets},
	"controllerMaxBrokersPerSet": {1, MaxControllerBrokersPerSet},
	"controllerMaxNameLength":    {1, MaxControllerNameLength},
	"controllerMaxStateBytes":    {64 << 10, MaxControllerStateBytes},
}

// boundRules checks every numeric key of bs against numericBounds; a key
// missing from the table is itself an error, so a new key cannot skip it.
func boundRules(r *rules, bs []binding) {
	for _, b := range bs {
		if !isIntKind(b.v.Kind()) {
			continue
		}
		bd, ok := numericBounds[b.key]
		if !ok {
			r.addf("%s has no bounds (a numeric key missing from numericBounds)", b.key)
			continue
		}
		if v := b.v.Int(); v < bd.lo || v > bd.hi {
			r.addf("%s (%d) must be between %d and %d", b.key, v, bd.lo, bd.hi)
		}
	}
}

func isIntKind(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int32 || k == reflect.Int64
}
