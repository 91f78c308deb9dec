package acl

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/rmqgo/nameserver/internal/aclfile"
	"github.com/rmqgo/nameserver/remoting"
)

// Account is one parsed account.
type Account struct {
	AccessKey string
	secretKey string
	Role      Permission
	Allowed   *aclfile.Pattern // nil: any address
}

// Sign signs req with the account's keys (Sign, no SecurityToken): a node
// signs its own requests with an account of its accounts file without the
// secret leaving this package.
func (acc *Account) Sign(req *remoting.Command) { Sign(req, acc.AccessKey, acc.secretKey, "") }

// Accounts is one loaded accounts file; it is never modified.
type Accounts struct {
	global []*aclfile.Pattern
	byKey  map[string]*Account
}

// Lookup returns the account of an access key.
func (a *Accounts) Lookup(accessKey string) (*Account, bool) {
	acc, ok := a.byKey[accessKey]
	return acc, ok
}

// ReadFile reads and parses the accounts file at path (a regular file of
// at most 16 MiB, aclfile.ReadFile); errors wrap ErrBadFile and name the path.
func ReadFile(path string) (*Accounts, error) {
	f, err := aclfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return accountsOf(f), nil
}

// Parse parses accounts YAML, reporting every broken rule at once
// (aclfile.Parse); the Accounts then hold the valid accounts. Text without
// a YAML document (empty, or only comments) is an error.
func Parse(b []byte) (*Accounts, error) {
	f, err := aclfile.Parse(b)
	if f == nil {
		return nil, err
	}
	return accountsOf(f), err
}

// accountsOf indexes the accounts of f by access key.
func accountsOf(f *aclfile.File) *Accounts {
	a := &Accounts{global: f.Global, byKey: make(map[string]*Account, len(f.Accounts))}
	for _, fa := range f.Accounts {
		a.byKey[fa.AccessKey] = &Account{AccessKey: fa.AccessKey, secretKey: fa.SecretKey, Role: fa.Role, Allowed: fa.Allowed}
	}
	return a
}

// toolsFile is Java's conf/tools.yml: the credentials mqadmin signs with.
type toolsFile struct {
	AccessKey string `yaml:"accessKey"`
	SecretKey string `yaml:"secretKey"`
}

// ReadToolsFile returns the accessKey and secretKey of a tools.yml file
// (AclUtils.getAclRPCHook).
func ReadToolsFile(path string) (accessKey, secretKey string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	var tf toolsFile
	if err := yaml.Unmarshal(b, &tf); err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrBadFile, path, err)
	}
	if tf.AccessKey == "" || tf.SecretKey == "" {
		return "", "", fmt.Errorf("%w: %s: accessKey and secretKey must both be set", ErrBadFile, path)
	}
	return tf.AccessKey, tf.SecretKey, nil
}
