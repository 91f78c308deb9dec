package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/internal/backupfile"
)

// setupBackupController is backupController (ours, like etcdctl snapshot
// save): a consistent backup of the Controller group's state, taken by
// the leader, written to -f with a checksum. It never overwrites a file.
func setupBackupController(fs *flag.FlagSet) runFunc {
	var list, file string
	strFlag(fs, &list, "a", "controllerAddress", "Controller address list, eg: 192.168.0.1:9878;192.168.0.2:9878")
	strFlag(fs, &file, "f", "file", "the backup file to write (must not exist)")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err == nil {
			err = required(opt("f", &file))
		}
		if err != nil {
			return err
		}
		b, enc, leader, err := takeBackup(e, addrs)
		if err != nil {
			return err
		}
		if err := writeNewFile(file, enc); err != nil {
			return err
		}
		sum := backupfile.SumOf(enc)
		if e.json {
			return e.printJSON(map[string]any{"file": file, "leader": leader, "index": b.Index,
				"term": b.Term, "bytes": len(enc), "sha256": sum})
		}
		e.printf("backup of the controller state at raft index %d (term %d) from leader %s: %d bytes, sha256 %s, written to %s\n",
			b.Index, b.Term, leader, len(enc), sum, file)
		return nil
	}
}

// takeBackup asks the leader, finding it again once if leadership moved
// between the lookup and the request.
func takeBackup(e *env, addrs []string) (*backupfile.Backup, []byte, string, error) {
	var err error
	for range 2 {
		var md *admin.ControllerMetadata
		if md, err = e.client.FindLeader(e.ctx, addrs); err != nil {
			return nil, nil, "", err
		}
		b, enc, berr := e.client.ControllerBackup(e.ctx, md.LeaderAddr)
		if berr == nil {
			return b, enc, md.LeaderAddr, nil
		}
		err = berr
		if code, ok := admin.ResponseCode(berr); !ok || code != codeNotLeader {
			break
		}
	}
	return nil, nil, "", err
}

// codeNotLeader is CONTROLLER_NOT_LEADER (2007).
const codeNotLeader = 2007

// writeNewFile writes data to path, which must not exist, through a
// temporary file that is fsync'd and renamed (a crash leaves no half
// backup under the name).
func writeNewFile(path string, data []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists: choose another name (a backup never overwrites a file)", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path) // fails, rather than replaces, if path appeared meanwhile
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, derr := os.Open(filepath.Dir(path)); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
