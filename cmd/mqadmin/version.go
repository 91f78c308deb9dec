package main

import (
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/rmqgo/nameserver/admin"
)

// printVersions adds the version lines of getControllerMetaData when the
// node sent them (nodes past v1.0.0; Java and v1.0.0 send none, and their
// output stays Java's).
func printVersions(e *env, md *admin.ControllerMetadata) {
	if md.BinaryVersion == "" && md.FormatVersion == "" && md.ClusterVersion == "" {
		return
	}
	e.printf("\n#BinaryVersion\t%s", orNull(md.BinaryVersion))
	e.printf("\n#FormatVersion\t%s", orNull(md.FormatVersion))
	e.printf("\n#ClusterVersion\t%s", orNull(md.ClusterVersion))
}

// versionRow is one controller's line of getControllerVersions.
type versionRow struct {
	Addr           string `json:"addr"`
	BinaryVersion  string `json:"binaryVersion"`
	FormatVersion  string `json:"controllerFormatVersion"`
	ClusterVersion string `json:"controllerClusterVersion"`
	IsLeader       bool   `json:"isLeader"`
	// MembersDrift: the node's controllerRaftPeers differ from its Raft
	// configuration (listControllerMembers, docs/controller-ops.md).
	MembersDrift string `json:"raftMembersDrift,omitempty"`
	Error        string `json:"error,omitempty"`
}

// setupGetControllerVersions asks every controller of -a for its 1005
// and prints its versions: what to check between the steps of a rolling
// upgrade (docs/upgrading.md). A node that sends no version fields is
// v1.0.0 (format 1). It fails when a node does not answer.
func setupGetControllerVersions(fs *flag.FlagSet) runFunc {
	var list string
	strFlag(fs, &list, "a", "controllerAddress", "the addresses of every controller of the group")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err != nil {
			return err
		}
		var rows []versionRow
		var errs []error
		for _, a := range addrs {
			md, err := e.client.ControllerMetadata(e.ctx, a)
			rows = append(rows, rowOf(a, md, err))
			errs = append(errs, err)
		}
		if e.json {
			if err := e.printJSON(rows); err != nil {
				return err
			}
		} else {
			printVersionRows(e, rows)
		}
		return errors.Join(errs...)
	}
}

func rowOf(addr string, md *admin.ControllerMetadata, err error) versionRow {
	if err != nil {
		return versionRow{Addr: addr, Error: err.Error()}
	}
	r := versionRow{Addr: addr, BinaryVersion: md.BinaryVersion, FormatVersion: md.FormatVersion,
		ClusterVersion: md.ClusterVersion, IsLeader: md.IsLeader, MembersDrift: md.MembersDrift}
	if r.FormatVersion == "" { // v1.0.0 sends no version fields
		r.BinaryVersion, r.FormatVersion, r.ClusterVersion = "1.0.0 or Java", "1", "?"
	}
	return r
}

// printVersionRows prints one line per node, the columns as wide as their
// widest cell (pod host names are longer than 24 characters).
func printVersionRows(e *env, rows []versionRow) {
	w := tabwriter.NewWriter(e.out, 0, 0, 1, ' ', 0)
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", "#Controller", "#Binary", "#Format", "#Cluster", "#Leader")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(w, "%s\terror: %s\n", r.Addr, r.Error)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%t\n", r.Addr, r.BinaryVersion, r.FormatVersion, r.ClusterVersion, r.IsLeader)
		if r.MembersDrift != "" {
			fmt.Fprintf(w, "\t#MembersDrift %s\n", r.MembersDrift)
		}
	}
	_ = w.Flush()
}
