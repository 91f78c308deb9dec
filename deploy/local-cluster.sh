#!/usr/bin/env bash
# A local three-node cluster: NameServers on 127.0.0.1:9876/9886/9896, each
# embedding a Controller (127.0.0.1:9878/9868/9858, Raft on 9879/9869/9859).
#
#   deploy/local-cluster.sh [start]   build, start the three nodes, wait for a
#                                     ready controller leader, print the state
#   deploy/local-cluster.sh status    print the state
#   deploy/local-cluster.sh flow      play three controller-mode brokers of a
#                                     fresh broker set against the running
#                                     nodes (tools/brokerflow): ids, register,
#                                     elect, NameServer routes, sync-state
#                                     set, master failover with the 1008 the
#                                     survivors receive; non-zero on failure
#   deploy/local-cluster.sh stop      stop the nodes (SIGTERM, then wait)
#   deploy/local-cluster.sh clean     stop and delete the cluster directory
#
# State, logs and the generated configs live in $CLUSTER_DIR (default
# ${TMPDIR:-/tmp}/rmqgo-cluster); a node's config is generated from
# deploy/cluster/nN.properties only when absent, so updates persisted by
# 318 (to namesrv.properties) and 1009 (to the embedded controller's own
# namesrv.controller.properties beside it) survive restarts. start exits non-zero,
# naming it, when a node did not come up (process gone or port closed). CLUSTER_WAIT bounds the wait for a leader;
# FLOW_ARGS adds brokerflow flags (e.g. "-brokers 2 -keep -v"). Metrics of
# node N: http://127.0.0.1:55N7/metrics (5557, 5567, 5577).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${CLUSTER_DIR:-${TMPDIR:-/tmp}/rmqgo-cluster}
BIN=$DIR/bin
WAIT=${CLUSTER_WAIT:-30s}
NODES=(0 1 2)
CONTROLLERS="127.0.0.1:9878;127.0.0.1:9868;127.0.0.1:9858"
NAMESRVS="127.0.0.1:9876;127.0.0.1:9886;127.0.0.1:9896"
NAMESRV_PORTS=(9876 9886 9896)

build() {
	mkdir -p "$BIN"
	(cd "$ROOT" && go build -tags embedded_controller -o "$BIN/" ./cmd/namesrv ./cmd/controller ./cmd/mqadmin ./tools/brokerflow)
}

pid_of() {
	local f=$DIR/n$1/pid
	[[ -f $f ]] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}

start_node() {
	local n=$1 d=$DIR/n$1
	mkdir -p "$d"
	if pid=$(pid_of "$n"); then
		echo "n$n already running (pid $pid)"
		return
	fi
	[[ -f $d/namesrv.properties ]] || sed "s#@DIR@#$DIR#g" "$ROOT/deploy/cluster/n$n.properties" >"$d/namesrv.properties"
	nohup "$BIN/namesrv" -c "$d/namesrv.properties" >>"$d/namesrv.log" 2>&1 &
	echo $! >"$d/pid"
	echo "n$n started (pid $!, log $d/namesrv.log)"
}

status() {
	"$BIN/controller" -probe "$CONTROLLERS" -wait "${1:-0s}" || return 1
	echo "--- mqadmin getControllerMetaData -a $CONTROLLERS"
	"$BIN/mqadmin" getControllerMetaData -a "$CONTROLLERS" || true
	echo "--- mqadmin clusterList -n $NAMESRVS"
	"$BIN/mqadmin" clusterList -n "$NAMESRVS" || true
}

# node_up succeeds when node $1's process runs and its NameServer port
# accepts connections.
node_up() {
	pid_of "$1" >/dev/null && (exec 3<>"/dev/tcp/127.0.0.1/${NAMESRV_PORTS[$1]}") 2>/dev/null
}

# check_nodes waits (up to 10 s) for every node and names each one that did
# not come up, with its last log lines; non-zero if any.
check_nodes() {
	local down=()
	for n in "${NODES[@]}"; do
		for _ in $(seq 100); do node_up "$n" && break; pid_of "$n" >/dev/null || break; sleep 0.1; done
		node_up "$n" || down+=("n$n")
	done
	((${#down[@]} == 0)) && return 0
	for n in "${down[@]}"; do
		echo "$n did not come up; last log lines of $DIR/$n/namesrv.log:" >&2
		tail -n 5 "$DIR/$n/namesrv.log" >&2 || true
	done
	echo "nodes not up: ${down[*]}" >&2
	return 1
}

start() {
	build
	for n in "${NODES[@]}"; do start_node "$n"; done
	local rc=0
	check_nodes || rc=1
	if ! status "$WAIT"; then
		echo "no ready controller leader within $WAIT; last log lines:" >&2
		for n in "${NODES[@]}"; do tail -n 5 "$DIR/n$n/namesrv.log" >&2 || true; done
		exit 1
	fi
	echo "namesrvAddr=$NAMESRVS"
	echo "controllerAddr=$CONTROLLERS"
	exit "$rc"
}

flow() {
	"$BIN/controller" -probe "$CONTROLLERS" -wait "$WAIT" >/dev/null || {
		echo "no ready controller leader within $WAIT; start the cluster first" >&2
		return 1
	}
	# shellcheck disable=SC2086 # FLOW_ARGS is a list of flags
	"$BIN/brokerflow" -a "$CONTROLLERS" -n "$NAMESRVS" ${FLOW_ARGS:-}
}

stop() {
	local pids=()
	for n in "${NODES[@]}"; do
		if pid=$(pid_of "$n"); then
			kill -TERM "$pid" && pids+=("$pid") && echo "n$n stopping (pid $pid)"
		fi
		rm -f "$DIR/n$n/pid"
	done
	for pid in "${pids[@]}"; do
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && { echo "pid $pid did not stop, killing" >&2; kill -KILL "$pid"; }
	done
	return 0
}

case ${1:-start} in
start) start ;;
status) [[ -x $BIN/mqadmin ]] || build; status ;;
flow) [[ -x $BIN/brokerflow ]] || build; flow ;;
stop) stop ;;
clean) stop && rm -rf "$DIR" && echo "removed $DIR" ;;
*) echo "usage: $0 [start|status|flow|stop|clean]" >&2; exit 2 ;;
esac
