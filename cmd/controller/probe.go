package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rmqgo/nameserver/remoting"
)

const (
	probeCallTimeout = time.Second
	probePoll        = 200 * time.Millisecond
)

// nodeState is one controller's answer to CONTROLLER_GET_METADATA_INFO.
type nodeState struct {
	addr string
	ext  map[string]string
	err  error
}

// runProbe asks every address for its metadata (1005) until one names a
// leader that answers a leader-gated read (1012 of a probe broker set,
// which changes nothing), or wait elapses. It prints the cluster state and
// returns 0 when a ready leader was found, 1 otherwise.
func runProbe(list string, wait time.Duration, out io.Writer) int {
	addrs := splitAddrs(list)
	if len(addrs) == 0 {
		fmt.Fprintln(out, "probe: no controller address given")
		return 2
	}
	deadline := time.Now().Add(wait)
	for {
		states := probeAll(addrs)
		leader, ready := readyLeader(states)
		if ready || !time.Now().Before(deadline) {
			printStates(out, states, leader, ready)
			if ready {
				return 0
			}
			return 1
		}
		time.Sleep(probePoll)
	}
}

func splitAddrs(list string) []string {
	var out []string
	for _, a := range strings.Split(list, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func probeAll(addrs []string) []nodeState {
	states := make([]nodeState, 0, len(addrs))
	for _, a := range addrs {
		resp, err := call(a, remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil))
		st := nodeState{addr: a, err: err}
		if err == nil {
			st.ext = resp.ExtFields
		}
		states = append(states, st)
	}
	return states
}

// readyLeader returns the leader's address and whether it answers a
// leader-gated request with code 0: the probed address of the node that
// says it is the leader (from a host, the published port, where the name
// it advertises may not resolve), else the first address the nodes name.
func readyLeader(states []nodeState) (string, bool) {
	leader := ""
	for _, st := range states {
		if st.ext["isLeader"] == "true" {
			leader = st.addr
			break
		}
		leader = cmp.Or(leader, st.ext["controllerLeaderAddress"])
	}
	if leader == "" {
		return "", false
	}
	ext := map[string]string{"clusterName": "probe", "brokerName": "__controller_probe__"}
	resp, err := call(leader, remoting.NewRequest(remoting.ControllerGetNextBrokerID, ext, nil))
	return leader, err == nil && resp.Code == remoting.Success
}

// call sends one request on a fresh connection.
func call(addr string, req *remoting.Command) (*remoting.Command, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeCallTimeout)
	defer cancel()
	c, err := remoting.Dial(ctx, addr, remoting.ClientOptions{TLS: probeTLS})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Invoke(ctx, req)
}

func printStates(out io.Writer, states []nodeState, leader string, ready bool) {
	for _, st := range states {
		if st.err != nil {
			fmt.Fprintf(out, "%-22s unreachable: %v\n", st.addr, st.err)
			continue
		}
		fmt.Fprintf(out, "%-22s isLeader=%-5s leader=%s@%s group=%s peers=%s\n", st.addr,
			st.ext["isLeader"], orDash(st.ext["controllerLeaderId"]), orDash(st.ext["controllerLeaderAddress"]),
			orDash(st.ext["group"]), st.ext["peers"])
	}
	switch {
	case ready:
		fmt.Fprintf(out, "controller leader %s is ready\n", leader)
	case leader != "":
		fmt.Fprintf(out, "controller leader %s is not ready yet\n", leader)
	default:
		fmt.Fprintln(out, "no controller leader")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
