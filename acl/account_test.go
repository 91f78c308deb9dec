package acl

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/poll"
	"github.com/rmqgo/nameserver/remoting"
)

// TestAccountSignsOwnRequests: a node signs its own requests with an
// account of the accounts in force (Authorizer.Account, Account.Sign),
// which a peer with the same file accepts; after a reload without the
// account it is gone.
func TestAccountSignsOwnRequests(t *testing.T) {
	a, path := newTestAuthorizer(t, testAccounts, false)
	acc, ok := a.Account("readerKey1")
	require.True(t, ok)
	require.Equal(t, PermRead, acc.Role)
	req := remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil)
	acc.Sign(req)
	require.NoError(t, a.Check("", req))
	want := remoting.NewRequest(remoting.ControllerGetMetadataInfo, nil, nil)
	Sign(want, "readerKey1", "readerSecret1", "")
	require.Equal(t, want.ExtFields, req.ExtFields, "Sign with the account's keys")
	writeFile(t, path, "accounts:\n  - {accessKey: otherKey1, secretKey: otherSecret1}\n")
	poll.Until(t, "the reload removed the account", 10*time.Second, 5*time.Millisecond, poll.True(func() bool { _, ok := a.Account("readerKey1"); return !ok }))
}

// TestAccountIsACopy: what Account returns is the caller's: changing it
// does not change the accounts in force (which are never modified).
func TestAccountIsACopy(t *testing.T) {
	a, _ := newTestAuthorizer(t, testAccounts, false)
	acc, ok := a.Account("readerKey1")
	require.True(t, ok)
	acc.Role = PermAdmin
	req := remoting.NewRequest(remoting.PutKVConfig, map[string]string{"namespace": "n", "key": "k", "value": "v"}, nil)
	Sign(req, "readerKey1", "readerSecret1", "")
	require.ErrorIs(t, a.Check("", req), ErrDenied, "the reader is still a reader")
	again, _ := a.Account("readerKey1")
	require.Equal(t, PermRead, again.Role)
}

// TestReadFile: ReadFile parses a file (errors name it and wrap
// ErrBadFile).
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeFile(t, path, testAccounts)
	accs, err := ReadFile(path)
	require.NoError(t, err)
	acc, ok := accs.Lookup("brokerKey1")
	require.True(t, ok)
	require.Equal(t, PermBroker, acc.Role)
	writeFile(t, path, "accounts: [{accessKey: short}]\n")
	_, err = ReadFile(path)
	require.ErrorIs(t, err, ErrBadFile)
	require.ErrorContains(t, err, path)
	_, err = ReadFile(filepath.Join(t.TempDir(), "none.yml"))
	require.ErrorIs(t, err, ErrBadFile)
	require.ErrorContains(t, err, "none.yml")
}
