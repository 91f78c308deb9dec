//go:build embedded_controller

package main

import (
	"fmt"
	"io"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/config"
	"github.com/rmqgo/nameserver/controller"
	"github.com/rmqgo/nameserver/internal/backupfile"
)

// runRestore is -restore-backup (like etcdutl snapshot restore): it reads
// and checks the backup file, writes this node's controllerStorePath as a
// member of a new group holding its state, and exits. The group id it
// prints is the same on every node restored from the same file, peers and
// token; nodes of the old group cannot join the new one.
func runRestore(cfg *config.ControllerConfig, opts options, stdout, stderr io.Writer) int {
	b, err := backupfile.ReadFile(opts.restore, admin.MaxBackupBytes)
	if err != nil {
		fmt.Fprintln(stderr, "mqcontroller: restore:", err)
		return 1
	}
	group, err := controller.RestoreBackup(cfg, b, opts.token)
	if err != nil {
		fmt.Fprintln(stderr, "mqcontroller: restore:", err)
		return 1
	}
	fmt.Fprintf(stdout, "restored %s (raft index %d, taken %s, sha256 %s) into %s as node %s of new raft group %s; "+
		"start every node of the group the same way, then the controllers\n",
		opts.restore, b.Index, b.Taken.UTC().Format("2006-01-02T15:04:05Z"), b.Sum(), cfg.ControllerStorePath,
		cfg.ControllerDLegerSelfId, group)
	return 0
}
