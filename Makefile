# Targets: build, run, test, lint, test-long, bench, fuzz, cluster, image, test-image, clean. See README.md.
GO        ?= go
BIN       := bin
TAGS_CTRL := embedded_controller
PKGS      := ./...
RACE      ?= -race
# VERSION is what -version prints and /metrics' rocketmq_build_info says:
# the nearest tag (v1.0.0, or v1.0.0-3-gabc1234 past it), else the source's
# default (internal/version).
VERSION   ?= $(shell git describe --tags --match 'v*' --dirty 2>/dev/null | sed 's/^v//')
# REVISION is the commit -version, the startup log and rocketmq_build_info
# name (also for untagged builds): 12 hex digits, -dirty with uncommitted changes.
REVISION  ?= $(shell r=$$(git rev-parse --short=12 HEAD 2>/dev/null) && { git diff --quiet HEAD -- || r=$$r-dirty; echo $$r; })
VERSION_PKG := github.com/rmqgo/nameserver/internal/version
LDFLAGS   := -ldflags "$(if $(VERSION),-X $(VERSION_PKG).Version=$(VERSION)) $(if $(REVISION),-X $(VERSION_PKG).revision=$(REVISION))"

.PHONY: all build build-controller run test test-long vet lint fmt-check deps-check unit unit-controller bench fuzz cluster image clean test-alerts test-image
.PHONY: test-browser
.PHONY: test-unit test-cluster test-simulation test-fault test-crash test-soak

all: build

build:
	$(GO) build $(LDFLAGS) -o $(BIN)/ ./cmd/...

# build-controller writes to bin/embedded/, apart from build's bin/controller
# binary, so that either order of the two works.
build-controller:
	mkdir -p $(BIN)/embedded
	$(GO) build $(LDFLAGS) -tags $(TAGS_CTRL) -o $(BIN)/embedded/ ./cmd/...

## run: a NameServer on 127.0.0.1:9876 with embedded defaults (state under ~/namesrv)
run: build
	$(BIN)/namesrv

## test: everything CI checks, under both tag sets
test: fmt-check vet lint deps-check test-alerts unit unit-controller
test: test-browser

## test-alerts: promtool checks the Prometheus alerting rules and runs their
## unit tests (deploy/prometheus/); says so and succeeds without promtool
## (Debian: apt-get install prometheus)
PROMTOOL ?= promtool
test-alerts:
	@if ! command -v $(PROMTOOL) >/dev/null 2>&1; then \
		echo "test-alerts: skipped: $(PROMTOOL) not found (apt-get install prometheus)"; exit 0; fi; \
	set -e; \
	$(PROMTOOL) check rules deploy/prometheus/rocketmq-alerts.yml; \
	$(PROMTOOL) test rules deploy/prometheus/rocketmq-alerts.test.yml

## test-browser: the status page (/ of the metrics listener) loaded in
## headless chromium by the tests named *InBrowser* (RMQ_TEST_BROWSER=1;
## those of the Controller under -tags $(TAGS_CTRL));
## screenshots under $(ARTIFACTS)/<test>/, their paths in the output (the
## whole log in $(ARTIFACTS)/*.log); says so and succeeds without chromium
## (Debian: apt-get install chromium)
CHROMIUM  ?= chromium
ARTIFACTS ?= $(BIN)/artifacts
BROWSER_TESTS := $(RACE) -count=1 -timeout 10m -v
BROWSER_SHOW  := grep -hE '^(--- |ok |FAIL|panic)|screenshot'
test-browser:
	@if ! command -v $(CHROMIUM) >/dev/null 2>&1; then \
		echo "test-browser: skipped: $(CHROMIUM) not found (apt-get install chromium)"; exit 0; fi; \
	mkdir -p $(ARTIFACTS); export RMQ_TEST_BROWSER=1 RMQ_ARTIFACTS=$(abspath $(ARTIFACTS)) CHROMIUM=$(CHROMIUM); \
	$(GO) test $(BROWSER_TESTS) -run 'InBrowser' ./cmd/namesrv/ >$(ARTIFACTS)/browser-default.log 2>&1; a=$$?; \
	$(GO) test $(BROWSER_TESTS) -tags $(TAGS_CTRL) -run 'InBrowser.*Controller' ./cmd/namesrv/ ./test/controllertest/ >$(ARTIFACTS)/browser-controller.log 2>&1; b=$$?; \
	$(BROWSER_SHOW) $(ARTIFACTS)/browser-default.log $(ARTIFACTS)/browser-controller.log; \
	if [ $$a -ne 0 ] || [ $$b -ne 0 ]; then echo "test-browser: FAIL (logs in $(ARTIFACTS))"; exit 1; fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags $(TAGS_CTRL) $(PKGS)

## lint: staticcheck at the pinned STATICCHECK_VERSION over both tag sets in
## one -matrix run (a name unused under one tag set but used under the other
## is not reported); `go run pkg@version` fetches it from the module proxy,
## verified by the Go checksum database, and caches the binary
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
lint:
	printf 'default:\ncontroller: -tags=$(TAGS_CTRL)\n' | $(STATICCHECK) -matrix $(PKGS)

## deps-check: the default build must not link hashicorp/raft
deps-check:
	@if $(GO) list -deps ./cmd/... | grep -q 'hashicorp/raft'; then \
		echo "default build links hashicorp/raft"; exit 1; fi
	@echo "deps-check: default build does not link hashicorp/raft"

## Test tiers (docs/testing.md). `make test` runs every tier but long, in
## its short mode, under both tag sets with -race: what CI runs. The
## targets below run one tier each, to iterate on it:
##   test-unit        every package outside test/ and test/docs, without the
##                    simulation, both tag sets, no -race: the fast loop
##   test-cluster     the rest of test/: in-process and process clusters,
##                    real binaries, fakes, the dashboard, without fault,
##                    crash and soak
##   test-simulation  the Controller simulation and randomized fencing
##   test-fault       fault-injection clusters (test/controllertest TestFault*)
##   test-crash       kill -9 during acknowledged writes
##   test-soak        healthy clients beside misbehaving ones (test/soak)
##   test-long        the long modes of all of them (RMQ_TEST_LONG=1)
## Each tier is the -run/-skip pattern and the packages named here; a new
## test joins a tier by its package and, in those tiers, by its name.
UNIT_PKGS      = $(shell $(GO) list $(PKGS) | grep -v '/test/') ./test/docs/
CLUSTER_PKGS   = $(shell $(GO) list ./test/... | grep -v '/test/docs$$')
TIER_SIM      := ^(TestSimulatedControllerSafety|TestFencingRandomInterleavings)$$
TIER_FAULT    := ^TestFault
TIER_CRASH    := WritesSurviveKill9
TIER_SOAK     := ^TestSoak$$
test-unit:
	$(GO) test -count=1 -timeout 15m -skip '$(TIER_SIM)' $(UNIT_PKGS)
	$(GO) test -count=1 -timeout 15m -tags $(TAGS_CTRL) -skip '$(TIER_SIM)' $(UNIT_PKGS)

test-cluster:
	$(GO) test $(RACE) -count=1 -timeout 15m -skip '$(TIER_FAULT)|$(TIER_CRASH)|$(TIER_SOAK)' $(CLUSTER_PKGS)
	$(GO) test $(RACE) -count=1 -timeout 15m -tags $(TAGS_CTRL) -skip '$(TIER_FAULT)|$(TIER_CRASH)|$(TIER_SOAK)' $(CLUSTER_PKGS)

test-simulation:
	$(GO) test $(RACE) -count=1 -timeout 15m -tags $(TAGS_CTRL) -run '$(TIER_SIM)' ./controller/...

test-fault:
	$(GO) test $(RACE) -count=1 -timeout 15m -tags $(TAGS_CTRL) -run '$(TIER_FAULT)' ./test/controllertest/

test-crash:
	$(GO) test $(RACE) -count=1 -timeout 15m -run '$(TIER_CRASH)' ./test/integration/
	$(GO) test $(RACE) -count=1 -timeout 15m -tags $(TAGS_CTRL) -run '$(TIER_CRASH)' ./test/integration/ ./test/controllertest/

test-soak:
	$(GO) test $(RACE) -count=1 -timeout 15m -run '$(TIER_SOAK)' ./test/soak/

unit:
	$(GO) test $(RACE) -timeout 15m $(PKGS)

unit-controller:
	$(GO) test $(RACE) -tags $(TAGS_CTRL) -timeout 15m $(PKGS)

## test-long: the long suites, each with RMQ_TEST_LONG=1: the Controller
## simulation (10,000 seeds over several broker sets, per-set ordering and
## Raft batches) and randomized fencing, the leader killed during a
## failover storm of 333 of 1,000 broker sets, the Raft leader's process
## killed with 10 of 30 masters (5 runs), the snapshot round
## trip (3,000 request sequences) and the poisoned-snapshot restart at the
## default 8,192-entry threshold, the fault-injection
## cluster runs (100+ seeds), the rolling upgrade from the v1.0.0 tag with
## real binaries, also with ACL on (skipped without the tag), random wipes of Raft nodes (40
## rounds), a Raft follower down 2.5 minutes at the default timeouts (the
## peer error log), the
## route table's fast-path twin (400 runs), the kill -9 crash trials (100
## each) and the 2-minute soak of 1,000 connections. RMQ_SEED /
## RMQ_CRASH_SEED / RMQ_SOAK_SEED / RMQ_WIPE_SEED replay one seed; every
## run prints its seeds.
LONG_TIMEOUT ?= 180m
test-long:
	RMQ_TEST_LONG=1 $(GO) test -count=1 -timeout $(LONG_TIMEOUT) -tags $(TAGS_CTRL) ./controller/ ./test/controllertest/ ./raftstore/
	RMQ_TEST_LONG=1 $(GO) test -count=1 -timeout $(LONG_TIMEOUT) ./namesrv/route/
	RMQ_TEST_LONG=1 $(GO) test -count=1 -timeout $(LONG_TIMEOUT) -run 'WritesSurviveKill9' ./test/integration/
	RMQ_TEST_LONG=1 $(GO) test -count=1 -timeout $(LONG_TIMEOUT) -run 'TestSoak' ./test/soak/

## bench: Go benchmarks plus the end-to-end load tool (all workloads, then the TLS cost, then the Controller
## fleet: 300 sets' alter throughput, heartbeat load and close storm, 200 sets' silence storm); figures go to BENCHMARKS.md.
## BENCH_SCALE=1m adds the 1M-topic benchmark, scale row and restart storm (minutes).
## BenchmarkRegisterIdenticalToFloor prints identical re-registration / transport floor (target 1.25).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1s -timeout 10m ./remoting/... ./namesrv/...
	mkdir -p $(BIN)
	$(GO) run ./tools/loadgen -workload all -out $(BIN)/loadgen.json
	$(GO) run ./tools/loadgen -workload tls -duration 6s -rounds 3 -warmup 1s -out $(BIN)/loadgen-tls.json
	$(GO) test -tags $(TAGS_CTRL) -run '^$$' -bench . -benchtime 5x -timeout 10m ./test/controllertest/
	$(GO) run -tags $(TAGS_CTRL) ./tools/loadgen -workload ctlstorm -sets 300 -ctl-phases ops,hb,storm -ops-duration 3s -hb-window 3s -out $(BIN)/loadgen-ctlstorm.json
	$(GO) run -tags $(TAGS_CTRL) ./tools/loadgen -workload ctlstorm -sets 200 -mode silence -out $(BIN)/loadgen-ctlstorm-silence.json

## fuzz: run each fuzz target for FUZZTIME (seed corpora already run in `make test`);
## TestMakeFuzzRunsEveryFuzzTarget (test/docs) fails on a `func Fuzz` missing here
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDecodeFrame -fuzztime $(FUZZTIME) ./remoting
	$(GO) test -run '^$$' -fuzz FuzzJSONHeader -fuzztime $(FUZZTIME) ./remoting
	$(GO) test -run '^$$' -fuzz FuzzRocketMQHeader -fuzztime $(FUZZTIME) ./remoting
	$(GO) test -run '^$$' -fuzz FuzzRecycledDecode -fuzztime $(FUZZTIME) ./remoting
	$(GO) test -run '^$$' -fuzz FuzzDecodeRegisterBody -fuzztime $(FUZZTIME) ./namesrv/wire
	$(GO) test -run '^$$' -fuzz FuzzDecodeTopicRouteData -fuzztime $(FUZZTIME) ./namesrv/wire
	$(GO) test -run '^$$' -fuzz FuzzDecodeInflatedRegisterBody -fuzztime $(FUZZTIME) ./namesrv/wire
	$(GO) test -run '^$$' -fuzz FuzzRegisterDataVersionStamp -fuzztime $(FUZZTIME) ./namesrv/wire
	$(GO) test -run '^$$' -fuzz FuzzAttackReaderHeaders -fuzztime $(FUZZTIME) ./namesrv
	$(GO) test -run '^$$' -fuzz FuzzClosedAddressesLeaveNoGroup -fuzztime $(FUZZTIME) ./namesrv/route
	$(GO) test -run '^$$' -fuzz FuzzConfigUpdate -fuzztime $(FUZZTIME) ./config
	$(GO) test -run '^$$' -fuzz FuzzFlavour -fuzztime $(FUZZTIME) ./internal/fastjson
	$(GO) test -run '^$$' -fuzz FuzzWrapValues -fuzztime $(FUZZTIME) ./internal/lograte
	$(GO) test -run '^$$' -fuzz FuzzParsePattern -fuzztime $(FUZZTIME) ./internal/aclfile
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime $(FUZZTIME) ./acl
	$(GO) test -run '^$$' -fuzz FuzzReadHeader -fuzztime $(FUZZTIME) ./proxyproto
	$(GO) test -run '^$$' -fuzz FuzzParseKey -fuzztime $(FUZZTIME) ./tlsconf
	$(GO) test -tags $(TAGS_CTRL) -run '^$$' -fuzz FuzzControllerRequest -fuzztime $(FUZZTIME) ./controller
	$(GO) test -tags $(TAGS_CTRL) -run '^$$' -fuzz FuzzDecodeEntry -fuzztime $(FUZZTIME) ./controller
	$(GO) test -tags $(TAGS_CTRL) -run '^$$' -fuzz FuzzSnapshotRoundTrip -fuzztime $(FUZZTIME) ./controller
	$(GO) test -tags $(TAGS_CTRL) -run '^$$' -fuzz FuzzNamesStoredAsSent -fuzztime $(FUZZTIME) ./controller
	$(GO) test -tags $(TAGS_CTRL) -run '^$$' -fuzz FuzzSnapshotRestore -fuzztime $(FUZZTIME) ./controller

## cluster: three NameServer+Controller nodes on 127.0.0.1, then the broker
## flow against them (tools/brokerflow); CLUSTER_CMD=start|status|flow|stop|clean
## runs one action alone
cluster:
ifeq ($(CLUSTER_CMD),)
	deploy/local-cluster.sh start
	deploy/local-cluster.sh flow
else
	deploy/local-cluster.sh $(CLUSTER_CMD)
endif

## image: both targets of the Dockerfile, $(IMAGE_REPO)/namesrv and
## $(IMAGE_REPO)/namesrv-controller tagged $(IMAGE_TAG), with the OCI labels
## (VERSION, REVISION, CREATED = the commit's time); says so and succeeds
## when no container engine answers (docker info fails), or fails with
## IMAGE_STRICT=1 (CI). With podman (or buildah) it builds in the docker
## format, whose config keeps the HEALTHCHECK (the OCI format drops it).
DOCKER       ?= docker
IMAGE_REPO   ?= rmqgo
IMAGE_TAG    ?= latest
IMAGE_STRICT ?=
CREATED      ?= $(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
IMAGE_FORMAT := $(if $(filter podman buildah,$(notdir $(firstword $(DOCKER)))),--format docker)
IMAGE_ARGS    = $(IMAGE_FORMAT) $(if $(VERSION),--build-arg VERSION=$(VERSION)) \
	$(if $(REVISION),--build-arg REVISION=$(REVISION)) $(if $(CREATED),--build-arg CREATED=$(CREATED))
image:
	@if ! $(DOCKER) info >/dev/null 2>&1; then \
		if [ -n "$(IMAGE_STRICT)" ]; then \
			echo "make image: no container engine answers ('$(DOCKER) info' failed) and IMAGE_STRICT is set" >&2; exit 1; fi; \
		echo "make image: no container engine answers ('$(DOCKER) info' failed): nothing built"; exit 0; fi; \
	set -e; \
	$(DOCKER) build --target namesrv $(IMAGE_ARGS) -t $(IMAGE_REPO)/namesrv:$(IMAGE_TAG) .; \
	$(DOCKER) build --target namesrv-controller $(IMAGE_ARGS) -t $(IMAGE_REPO)/namesrv-controller:$(IMAGE_TAG) .

## test-image: builds both targets of the Dockerfile on their empty base
## from binaries the build stage's script (deploy/container/build.sh) makes
## on the host, runs each under podman and checks the user, /healthz, the
## HEALTHCHECK, a lookup from the host and a graceful stop
## (test/deploy TestImageFromScratchServes); says so and succeeds when
## podman is missing or does not answer, fails instead with IMAGE_STRICT=1.
## IMAGE_RUNTIME is the OCI runtime (runc: crun fails on some cgroup modes).
PODMAN        ?= podman
IMAGE_RUNTIME ?= runc
test-image:
	@if ! $(PODMAN) info >/dev/null 2>&1; then \
		if [ -n "$(IMAGE_STRICT)" ]; then \
			echo "test-image: no container engine answers ('$(PODMAN) info' failed) and IMAGE_STRICT is set" >&2; exit 1; fi; \
		echo "test-image: skipped: no container engine answers ('$(PODMAN) info' failed; apt-get install podman)"; exit 0; fi; \
	RMQ_TEST_IMAGE=1 RMQ_PODMAN=$(PODMAN) RMQ_IMAGE_RUNTIME=$(IMAGE_RUNTIME) \
		$(GO) test -count=1 -timeout 20m -run '^TestImageFromScratchServes$$' -v ./test/deploy/

clean:
	rm -rf $(BIN)
