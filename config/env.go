package config

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Environment prefixes: NAMESRV_<KEY>=value sets property <key> of the
// NameServer (and of its embedded controller, which reads the same keys),
// CONTROLLER_<KEY>=value one of a standalone controller, over the -c file.
const (
	NamesrvEnvPrefix    = "NAMESRV_"
	ControllerEnvPrefix = "CONTROLLER_"
)

// envIgnored are variables under the prefixes that are not properties:
// the log level, and NAMESRV_ADDR, which RocketMQ's clients, brokers and
// mqadmin read for the NameServer list and which containers often set.
var envIgnored = map[string]bool{
	"NAMESRV_LOG_LEVEL": true, "NAMESRV_ADDR": true, "CONTROLLER_LOG_LEVEL": true,
	"NAMESRV_LOG_FORMAT": true, "CONTROLLER_LOG_FORMAT": true,
}

// serviceLink matches what Kubernetes injects for a Service named like
// the prefix (enableServiceLinks): X_SERVICE_HOST, X_SERVICE_PORT[_NAME],
// X_PORT, X_PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR].
var serviceLink = regexp.MustCompile(`^(SERVICE_HOST|SERVICE_PORT(_\w+)?|PORT(_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?)$`)

// EnvProps returns the properties set by environ's variables under prefix.
// The rest of a variable's name, without underscores and in any case,
// names a key of keys: NAMESRV_LISTENPORT, NAMESRV_LISTEN_PORT and
// NAMESRV_listenPort all set listenPort. A variable naming no key, or two
// naming one key, is an error wrapping ErrLoad and naming the variables.
// The log level, NAMESRV_ADDR and Kubernetes service links are skipped.
func EnvProps(environ []string, prefix string, keys []string) (map[string]string, error) {
	props, _, err := envProps(environ, prefix, keys)
	return props, err
}

// envProps is EnvProps also returning, for each key set, the variable
// that set it.
func envProps(environ []string, prefix string, keys []string) (props, from map[string]string, err error) {
	byFold := map[string]string{}
	for _, k := range keys {
		byFold[foldEnvName(k)] = k
	}
	props, from = map[string]string{}, map[string]string{}
	var errs []error
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || envIgnored[name] || serviceLink.MatchString(rest) {
			continue
		}
		key, known := byFold[foldEnvName(rest)]
		switch {
		case !known:
			errs = append(errs, fmt.Errorf("%w: environment variable %s names no key (%s<key>, e.g. %sLISTENPORT=9876)",
				ErrLoad, name, prefix, prefix))
		case from[key] != "":
			errs = append(errs, fmt.Errorf("%w: environment variables %s and %s both set %s", ErrLoad, from[key], name, key))
		default:
			props[key], from[key] = value, name
		}
	}
	return props, from, errors.Join(errs...)
}

func foldEnvName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// namesrvKeys lists every key the NameServer and its embedded controller
// read, sorted.
func namesrvKeys() []string {
	c := defaults()
	return keysOf(append(bindings(c), bindings(&c.Controller)...))
}

// controllerKeys lists every key a standalone controller reads, sorted.
func controllerKeys() []string { return keysOf(bindings(controllerDefaults(0))) }

func keysOf(bs []binding) []string {
	set := map[string]bool{}
	for _, b := range bs {
		set[b.key] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// LoadWithEnv is Load (Default when path is empty) with the NAMESRV_
// variables of environ applied over the file (see EnvProps). A value that
// does not parse names its variable.
func LoadWithEnv(path string, environ []string) (*NamesrvConfig, error) {
	env, from, err := envProps(environ, NamesrvEnvPrefix, namesrvKeys())
	if err != nil {
		return nil, err
	}
	c := defaults()
	if path != "" {
		if c, err = load(path, env); err != nil {
			return nil, err
		}
	} else {
		c.raw = maps.Clone(env)
		c.loadErrs = applyProps(bindings(c), env)
		c.Controller.applyFile(env)
		c.finish()
	}
	c.loadErrs = namingEnv(c.loadErrs, from)
	c.Controller.loadErrs = namingEnv(c.Controller.loadErrs, from)
	return c, nil
}

// LoadControllerWithEnv is LoadController with the CONTROLLER_ variables
// of environ applied over the -c file. A value that does not parse names
// its variable.
func LoadControllerWithEnv(path string, environ []string) (*ControllerConfig, error) {
	env, from, err := envProps(environ, ControllerEnvPrefix, controllerKeys())
	if err != nil {
		return nil, err
	}
	cc, err := loadController(path, env)
	if err != nil {
		return nil, err
	}
	cc.loadErrs = namingEnv(cc.loadErrs, from)
	return cc, nil
}
