package config

import "github.com/rmqgo/nameserver/internal/aclfile"

// ControllerAccess holds controllerAccessKey (ours): the account of the
// node's own accounts file (aclConfigPath) that a controller signs its
// requests to the other controllers with, the leader's 1005
// cluster-version poll, so that peers with aclEnable=true and
// aclAnonymousRead=false answer it. Its secret stays in the accounts file.
// With aclEnable=false it is ignored, as aclConfigPath is (the node
// neither checks nor signs).
type ControllerAccess struct {
	ControllerAccessKey string `prop:"controllerAccessKey,omitempty"`
}

// No remote update changes controllerAccessKey: it is the credential the
// node presents to its peers (as the controllerRaftTls* files are on the
// Raft transport), and with aclEnable=false, when it is not checked, an
// anonymous update would plant the account the node signs with once ACL
// is switched on.
func init() { fixedBlackList = append(fixedBlackList, "controllerAccessKey") }

// peerRequestPermission is the role the account must have, exactly: what
// the requests a controller sends to the other controllers need (1005
// needs read in acl's code table, acl.Required; TestEveryServedCodeIsClassified
// there keeps it read). No more: the poll has no field, so its signature
// covers the access key alone, and a captured one signs any request
// without fields or body for that account.
func peerRequestPermission() aclfile.Permission {
	return aclfile.PermRead
}

// rules: with aclEnable and controllerAccessKey set, the key must name an
// account of aclConfigPath whose role is peerRequestPermission. A file
// that cannot be read or parsed is left to the aclConfigPath rule and to
// package acl at startup, which name it. The file is read by aclfile, the
// reader acl uses, so both see the same accounts.
func (a *ControllerAccess) rules(r *rules, c ACL) {
	key := a.ControllerAccessKey
	if !c.AclEnable || key == "" {
		return
	}
	accs, err := aclfile.ReadFile(c.AclConfigPath)
	if err != nil {
		return
	}
	acc, ok := accs.Lookup(key)
	switch need := peerRequestPermission(); {
	case !ok:
		r.addf("controllerAccessKey (%s) must be an account of aclConfigPath (%s) when aclEnable is true", key, c.AclConfigPath)
	case acc.Role != need:
		r.addf("controllerAccessKey (%s) must have the %s role (it has %s)", key, need, acc.Role)
	}
}
