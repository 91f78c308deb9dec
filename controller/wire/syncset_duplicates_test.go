package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAttackSyncStateSetDuplicatesRetainNothing: an alter body that
// repeats one id a million times decodes to one id, and the decoded set
// must not keep the million-id array alive (a 1001 waiting on the leader's
// scheduler holds its decoded request: up to 1,024 of them).
func TestAttackSyncStateSetDuplicatesRetainNothing(t *testing.T) {
	const n = 1_000_000
	body := []byte(`{"syncStateSet":[1` + string(bytes.Repeat([]byte(",1"), n-1)) + `],"syncStateSetEpoch":1}`)
	ss, err := DecodeSyncStateSet(body)
	require.NoError(t, err)
	require.Equal(t, []int64{1}, ss.SyncStateSet)
	require.LessOrEqual(t, cap(ss.SyncStateSet), 8, "capacity %d kept for 1 id", cap(ss.SyncStateSet))
	require.Equal(t, []int64{}, NormalizeIDs(nil))
}
