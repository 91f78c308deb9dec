package aclfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// Sentinel errors; returned errors wrap one of them with %w and name the
// file, key or access key concerned (never a secret).
var (
	// ErrBadFile means the accounts file cannot be read or is invalid.
	ErrBadFile = errors.New("bad acl file")
	// ErrBadPattern means an address pattern does not parse.
	ErrBadPattern = errors.New("bad address pattern")
)

// MaxFileSize bounds the accounts file read into memory.
const MaxFileSize = 16 << 20

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

// Account is one valid account of the file.
type Account struct {
	AccessKey string
	SecretKey string
	Role      Permission
	Allowed   *Pattern // nil: any address
}

// File is one parsed accounts file: the global address patterns and the
// valid accounts, in file order, their access keys distinct.
type File struct {
	Global   []*Pattern
	Accounts []Account
}

// Lookup returns the account of an access key.
func (f *File) Lookup(accessKey string) (Account, bool) {
	for _, acc := range f.Accounts {
		if acc.AccessKey == accessKey {
			return acc, true
		}
	}
	return Account{}, false
}

// ReadFile reads and parses the accounts file at path (a regular file of
// at most MaxFileSize); errors wrap ErrBadFile and name the path.
func ReadFile(path string) (*File, error) {
	b, _, err := watchedfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses accounts YAML, reporting every broken rule at once; the
// File then holds the valid part. Text without a YAML document (empty,
// or only comments) is an error, with no File.
func Parse(b []byte) (*File, error) {
	var d fileData
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); errors.Is(err, io.EOF) {
		// empty, or comments only: a file being written, most likely
		return nil, fmt.Errorf("%w: no YAML document (accounts: [] serves no account)", ErrBadFile)
	} else if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	f := &File{}
	var errs []error
	for _, s := range d.GlobalWhiteRemoteAddresses {
		p, err := ParsePattern(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: globalWhiteRemoteAddresses: %w", ErrBadFile, err))
			continue
		}
		f.Global = append(f.Global, p)
	}
	seen := make(map[string]bool, len(d.Accounts))
	for i, fa := range d.Accounts {
		acc, err := fa.parse()
		if err == nil && seen[acc.AccessKey] {
			err = fmt.Errorf("accessKey %s is listed twice", acc.AccessKey)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: accounts[%d]: %w", ErrBadFile, i, err))
			continue
		}
		seen[acc.AccessKey] = true
		f.Accounts = append(f.Accounts, acc)
	}
	return f, errors.Join(errs...)
}

func (fa fileAccount) parse() (Account, error) {
	if len(fa.AccessKey) < minKeyLength || len(fa.SecretKey) < minKeyLength {
		return Account{}, fmt.Errorf("accessKey %q: accessKey and secretKey need at least %d characters", fa.AccessKey, minKeyLength)
	}
	acc := Account{AccessKey: fa.AccessKey, SecretKey: fa.SecretKey, Role: PermRead}
	if fa.Role != "" {
		role, ok := ParseRole(fa.Role)
		if !ok {
			return Account{}, fmt.Errorf("accessKey %s: role %q is not read, broker or admin", fa.AccessKey, fa.Role)
		}
		acc.Role = role
	}
	if fa.Admin {
		if fa.Role != "" && acc.Role != PermAdmin {
			return Account{}, fmt.Errorf("accessKey %s: admin: true contradicts role %s", fa.AccessKey, fa.Role)
		}
		acc.Role = PermAdmin
	}
	if fa.WhiteRemoteAddress != "" {
		p, err := ParsePattern(fa.WhiteRemoteAddress)
		if err != nil {
			return Account{}, fmt.Errorf("accessKey %s: whiteRemoteAddress: %w", fa.AccessKey, err)
		}
		acc.Allowed = p
	}
	return acc, nil
}
