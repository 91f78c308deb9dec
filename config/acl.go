package config

import (
	"path/filepath"

	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// DefaultACLFileName is the accounts file looked for in the -c file's
// directory (~/namesrv without -c) when aclConfigPath is not set (Java's
// default is ${rocketmq.home}/conf/plain_acl.yml).
const DefaultACLFileName = "plain_acl.yml"

// ACL holds the request signature keys, shared by the NameServer and the
// Controller (standalone and embedded): see package acl.
type ACL struct {
	// AclEnable checks every request's ACL signature and role (off by
	// default, so existing clusters keep working).
	AclEnable bool `prop:"aclEnable"`
	// AclConfigPath is the accounts YAML file; "" = DefaultACLFileName in
	// the -c file's directory.
	AclConfigPath string `prop:"aclConfigPath"`
	// AclAnonymousRead lets unsigned requests read routes, cluster info,
	// KV and config when AclEnable is set.
	AclAnonymousRead bool `prop:"aclAnonymousRead"`
}

// aclBlackList: no remote update may switch ACL off or let anonymous
// requests read (aclConfigPath is protected by its Path suffix).
var aclBlackList = []string{"aclEnable", "aclAnonymousRead"}

func init() { fixedBlackList = append(fixedBlackList, aclBlackList...) }

func defaultACL() ACL { return ACL{AclAnonymousRead: true} }

// resolve sets the default accounts file in dir when none is configured.
func (a *ACL) resolve(dir string) {
	if a.AclConfigPath == "" {
		a.AclConfigPath = filepath.Join(dir, DefaultACLFileName)
	}
}

// rules: with aclEnable, aclConfigPath must name a readable regular file
// (its content is checked when the server starts, by package acl).
func (a *ACL) rules(r *rules) {
	if !a.AclEnable {
		return
	}
	f, fi, err := watchedfile.Open(a.AclConfigPath)
	switch {
	case fi != nil && fi.IsDir():
		r.addf("aclConfigPath (%s) must be a file, not a directory, when aclEnable is true", a.AclConfigPath)
	case err != nil:
		r.addf("aclConfigPath (%s) must be a readable file when aclEnable is true: %v", a.AclConfigPath, err)
	default:
		_ = f.Close()
	}
}
