package acl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/internal/aclfile"
	"github.com/rmqgo/nameserver/remoting"
)

// TestEveryServedCodeIsClassified lists every code the NameServer and the
// Controller register (namesrv/processors.go, controller/processor.go);
// a code added there must be added here and to codePerms.
func TestEveryServedCodeIsClassified(t *testing.T) {
	want := map[int32]Permission{
		100: PermAdmin, 101: PermRead, 102: PermAdmin, 103: PermBroker, 104: PermBroker,
		105: PermRead, 106: PermRead, 205: PermAdmin, 206: PermRead, 216: PermAdmin,
		217: PermBroker, 219: PermRead, 224: PermRead, 304: PermRead, 311: PermRead,
		312: PermRead, 313: PermRead, 318: PermAdmin, 319: PermRead, 322: PermBroker,
		327: PermAdmin, 901: PermRead, 904: PermBroker,
		1001: PermBroker, 1002: PermBroker, 1003: PermBroker, 1004: PermRead, 1005: PermRead,
		1006: PermRead, 1009: PermAdmin, 1010: PermRead, 1011: PermAdmin, 1012: PermBroker,
		1013: PermBroker,
	}
	require.Len(t, codePerms, len(want))
	for code, p := range want {
		require.Equal(t, p, Required(remoting.NewRequest(code, nil, nil)), "code %d", code)
	}
}

func TestUnknownCodesNeedAdmin(t *testing.T) {
	for _, code := range []int32{0, 10, 905, 1008, 1014, 99999} {
		require.Equal(t, PermAdmin, Required(remoting.NewRequest(code, nil, nil)), "code %d", code)
	}
}

// TestDesignatedElectionNeedsAdmin: mqadmin's electMaster sets
// designateElect=true (ElectMasterRequestHeader.ofAdminTrigger); a
// broker's own election does not.
func TestDesignatedElectionNeedsAdmin(t *testing.T) {
	req := remoting.NewRequest(remoting.ControllerElectMaster, map[string]string{"designateElect": "true"}, nil)
	require.Equal(t, PermAdmin, Required(req))
	req.SetExt("designateElect", "false")
	require.Equal(t, PermBroker, Required(req))
}

func TestParseRole(t *testing.T) {
	for _, p := range []Permission{PermRead, PermBroker, PermAdmin} {
		got, ok := aclfile.ParseRole(p.String())
		require.True(t, ok)
		require.Equal(t, p, got)
	}
	_, ok := aclfile.ParseRole("root")
	require.False(t, ok)
}
