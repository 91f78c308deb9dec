package acl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/rmqgo/nameserver/internal/watchedfile"
	"github.com/rmqgo/nameserver/remoting"
)

// minKeyLength is Java's lower bound for access and secret keys
// (PlainPermissionManager.checkPlainAccessConfig).
const minKeyLength = 6

// fileData is the YAML accounts file. Java's per-topic and per-group keys
// (defaultTopicPerm, topicPerms, ...) are accepted and ignored.
type fileData struct {
	GlobalWhiteRemoteAddresses []string      `yaml:"globalWhiteRemoteAddresses"`
	Accounts                   []fileAccount `yaml:"accounts"`
}

type fileAccount struct {
	AccessKey          string `yaml:"accessKey"`
	SecretKey          string `yaml:"secretKey"`
	WhiteRemoteAddress string `yaml:"whiteRemoteAddress"`
	Role               string `yaml:"role"`
	Admin              bool   `yaml:"admin"`
}

// Account is one parsed account.
type Account struct {
	AccessKey string
	secretKey string
	Role      Permission
	Allowed   *Pattern // nil: any address
}

// Sign signs req with the account's keys (Sign, no SecurityToken): a node
// signs its own requests with an account of its accounts file without the
// secret leaving this package.
func (acc *Account) Sign(req *remoting.Command) { Sign(req, acc.AccessKey, acc.secretKey, "") }

// Accounts is one loaded accounts file; it is never modified.
type Accounts struct {
	global []*Pattern
	byKey  map[string]*Account
}

// Lookup returns the account of an access key.
func (a *Accounts) Lookup(accessKey string) (*Account, bool) {
	acc, ok := a.byKey[accessKey]
	return acc, ok
}

// ReadFile reads and parses the accounts file at path (a regular file of
// at most 16 MiB); errors wrap ErrBadFile and name the path.
func ReadFile(path string) (*Accounts, error) {
	b, _, err := watchedfile.Read(path, maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	accs, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return accs, nil
}

// Parse parses accounts YAML, reporting every broken rule at once. Text
// without a YAML document (empty, or only comments) is an error.
func Parse(b []byte) (*Accounts, error) {
	var d fileData
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); errors.Is(err, io.EOF) {
		// empty, or comments only: a file being written, most likely
		return nil, fmt.Errorf("%w: no YAML document (accounts: [] serves no account)", ErrBadFile)
	} else if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	a := &Accounts{byKey: make(map[string]*Account, len(d.Accounts))}
	var errs []error
	for _, s := range d.GlobalWhiteRemoteAddresses {
		p, err := ParsePattern(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: globalWhiteRemoteAddresses: %w", ErrBadFile, err))
			continue
		}
		a.global = append(a.global, p)
	}
	for i, fa := range d.Accounts {
		acc, err := fa.parse()
		if err == nil && a.byKey[acc.AccessKey] != nil {
			err = fmt.Errorf("accessKey %s is listed twice", acc.AccessKey)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: accounts[%d]: %w", ErrBadFile, i, err))
			continue
		}
		a.byKey[acc.AccessKey] = acc
	}
	return a, errors.Join(errs...)
}

func (fa fileAccount) parse() (*Account, error) {
	if len(fa.AccessKey) < minKeyLength || len(fa.SecretKey) < minKeyLength {
		return nil, fmt.Errorf("accessKey %q: accessKey and secretKey need at least %d characters", fa.AccessKey, minKeyLength)
	}
	acc := &Account{AccessKey: fa.AccessKey, secretKey: fa.SecretKey, Role: PermRead}
	if fa.Role != "" {
		role, ok := ParseRole(fa.Role)
		if !ok {
			return nil, fmt.Errorf("accessKey %s: role %q is not read, broker or admin", fa.AccessKey, fa.Role)
		}
		acc.Role = role
	}
	if fa.Admin {
		if fa.Role != "" && acc.Role != PermAdmin {
			return nil, fmt.Errorf("accessKey %s: admin: true contradicts role %s", fa.AccessKey, fa.Role)
		}
		acc.Role = PermAdmin
	}
	if fa.WhiteRemoteAddress != "" {
		p, err := ParsePattern(fa.WhiteRemoteAddress)
		if err != nil {
			return nil, fmt.Errorf("accessKey %s: whiteRemoteAddress: %w", fa.AccessKey, err)
		}
		acc.Allowed = p
	}
	return acc, nil
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
