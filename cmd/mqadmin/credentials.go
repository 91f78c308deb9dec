package main

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rmqgo/nameserver/acl"
	"github.com/rmqgo/nameserver/remoting"
)

// Environment variables holding the ACL credentials (ours; Java's mqadmin
// reads only conf/tools.yml).
const (
	envAccessKey = "ROCKETMQ_ACCESS_KEY"
	envSecretKey = "ROCKETMQ_SECRET_KEY"
)

// credentials are the ACL keys every request is signed with.
type credentials struct{ accessKey, secretKey string }

// declareCredentials declares --ak and --sk.
func (e *env) declareCredentials(fs *flag.FlagSet) {
	fs.StringVar(&e.creds.accessKey, "ak", "", "ACL access key to sign requests with (default $"+envAccessKey+
		", else accessKey of $ROCKETMQ_HOME/conf/tools.yml)")
	fs.StringVar(&e.creds.secretKey, "sk", "", "ACL secret key (default $"+envSecretKey+
		"; prefer the variable: flags show in ps)")
}

// signer returns the request signer of the credentials from --ak/--sk,
// else the environment, else $ROCKETMQ_HOME/conf/tools.yml (Java's
// MQAdminStartup); nil when there are none. One key without the other is
// a usage error.
func (e *env) signer() (func(*remoting.Command), error) {
	c := e.creds
	if c.accessKey == "" && c.secretKey == "" {
		c = credentials{os.Getenv(envAccessKey), os.Getenv(envSecretKey)}
	}
	if c.accessKey == "" && c.secretKey == "" {
		var err error
		if c, err = toolsCredentials(); err != nil {
			return nil, err
		}
	}
	if (c.accessKey == "") != (c.secretKey == "") {
		return nil, usageErrorf("--ak and --sk (or $%s and $%s) go together", envAccessKey, envSecretKey)
	}
	if c.accessKey == "" {
		return nil, nil
	}
	return func(req *remoting.Command) { acl.Sign(req, c.accessKey, c.secretKey, "") }, nil
}

// toolsCredentials reads $ROCKETMQ_HOME/conf/tools.yml; none when the
// variable is unset or the file does not exist.
func toolsCredentials() (credentials, error) {
	home := os.Getenv("ROCKETMQ_HOME")
	if home == "" {
		return credentials{}, nil
	}
	path := filepath.Join(home, "conf", "tools.yml")
	ak, sk, err := acl.ReadToolsFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return credentials{}, nil
	}
	return credentials{ak, sk}, err
}
