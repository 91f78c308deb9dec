package admin

import (
	"context"
	"fmt"

	"github.com/rmqgo/nameserver/internal/backupfile"
	"github.com/rmqgo/nameserver/remoting"
)

// MaxBackupBytes bounds the state of a backup the client accepts: what
// one remoting frame can carry.
const MaxBackupBytes = remoting.DefaultMaxFrameLength

// ControllerBackup asks the controller leader at addr for a consistent
// backup (ControllerBackup, this project's code 42101) and returns it
// with its file form, checked: it decodes, its checksum holds and it is
// the one the leader announced. A follower answers 2007 (a
// *ResponseError).
func (c *Client) ControllerBackup(ctx context.Context, addr string) (*backupfile.Backup, []byte, error) {
	resp, err := c.call(ctx, addr, remoting.ControllerBackup, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	b, err := backupfile.Decode(resp.Body, MaxBackupBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", addr, err)
	}
	if want, got := resp.ExtFields["sha256"], backupfile.SumOf(resp.Body); want != got {
		return nil, nil, fmt.Errorf("%s: %w: the leader announced sha256 %q, the body has %s",
			addr, backupfile.ErrBad, want, got)
	}
	return b, resp.Body, nil
}
