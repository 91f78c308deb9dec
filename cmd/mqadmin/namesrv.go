package main

import (
	"context"
	"flag"

	"github.com/rmqgo/nameserver/admin"
)

func setupUpdateKvConfig(fs *flag.FlagSet) runFunc {
	var ns, key, value string
	strFlag(fs, &ns, "s", "namespace", "set the namespace")
	strFlag(fs, &key, "k", "key", "set the key name")
	strFlag(fs, &value, "v", "value", "set the key value")
	return func(e *env) error {
		addrs, err := e.nameServers()
		if err == nil {
			err = required(opt("s", &ns), opt("k", &key), opt("v", &value))
		}
		if err != nil {
			return err
		}
		res, err := fanOut(addrs, each(func(a string) error { return e.client.PutKV(e.ctx, a, ns, key, value) }))
		if e.json {
			return fanOutJSON(e, map[string]any{"namespace": ns, "key": key, "value": value}, res, err)
		}
		if err == nil {
			e.printf("create or update kv config to namespace success.\n")
		}
		return failedOn(res, err)
	}
}

func setupDeleteKvConfig(fs *flag.FlagSet) runFunc {
	var ns, key string
	strFlag(fs, &ns, "s", "namespace", "set the namespace")
	strFlag(fs, &key, "k", "key", "set the key name")
	return func(e *env) error {
		addrs, err := e.nameServers()
		if err == nil {
			err = required(opt("s", &ns), opt("k", &key))
		}
		if err != nil {
			return err
		}
		res, err := fanOut(addrs, each(func(a string) error { return e.client.DeleteKV(e.ctx, a, ns, key) }))
		if e.json {
			return fanOutJSON(e, map[string]any{"namespace": ns, "key": key}, res, err)
		}
		if err == nil {
			e.printf("delete kv config from namespace success.\n")
		}
		return failedOn(res, err)
	}
}

// serverConfig is one server's configuration, for --json.
type serverConfig struct {
	Addr       string           `json:"addr"`
	Properties []admin.Property `json:"properties,omitempty"`
	Error      string           `json:"error,omitempty"`
}

func setupGetNamesrvConfig(fs *flag.FlagSet) runFunc {
	return func(e *env) error {
		addrs, err := e.nameServers()
		if err != nil {
			return err
		}
		return printConfigs(e, addrs, e.client.NamesrvConfig)
	}
}

// printConfigs prints each server's properties as getNamesrvConfig and
// getControllerConfig do: a banner per server, then "%-50s=  %s" lines.
func printConfigs(e *env, addrs []string, get func(context.Context, string) ([]admin.Property, error)) error {
	var configs []serverConfig
	res, err := fanOut(addrs, each(func(a string) error {
		props, err := get(e.ctx, a)
		sc := serverConfig{Addr: a, Properties: props}
		if err != nil {
			sc.Error = err.Error()
		}
		configs = append(configs, sc)
		return err
	}))
	if e.json {
		if perr := e.printJSON(configs); perr != nil {
			return perr
		}
		return failedOn(res, err)
	}
	for _, sc := range configs {
		if sc.Error != "" {
			continue
		}
		e.printf("============%s============\n", sc.Addr)
		for _, p := range sc.Properties {
			e.printf("%-50s=  %s\n", p.Key, p.Value)
		}
	}
	return failedOn(res, err)
}

func setupUpdateNamesrvConfig(fs *flag.FlagSet) runFunc {
	var key, value string
	strFlag(fs, &key, "k", "key", "config key")
	strFlag(fs, &value, "v", "value", "config value")
	return func(e *env) error {
		addrs, err := e.nameServers()
		if err == nil {
			err = required(opt("k", &key), opt("v", &value))
		}
		if err != nil {
			return err
		}
		return updateConfigs(e, addrs, key, value, "name server", e.client.UpdateNamesrvConfig)
	}
}

// updateConfigs sends key=value to every server, as updateNamesrvConfig
// and updateControllerConfig do.
func updateConfigs(e *env, addrs []string, key, value, what string,
	update func(context.Context, string, []admin.Property) error) error {
	props := []admin.Property{{Key: key, Value: value}}
	res, err := fanOut(addrs, each(func(a string) error { return update(e.ctx, a, props) }))
	if e.json {
		return fanOutJSON(e, map[string]any{"key": key, "value": value}, res, err)
	}
	if err == nil {
		e.printf("update %s config success!%s\n%s : %s\n", what, javaList(addrs), key, value)
	}
	return failedOn(res, err)
}

func setupWipeWritePerm(fs *flag.FlagSet) runFunc {
	return setupWritePerm(fs, "wipe", (*admin.Client).WipeWritePerm)
}

func setupAddWritePerm(fs *flag.FlagSet) runFunc {
	return setupWritePerm(fs, "add", (*admin.Client).AddWritePerm)
}

// setupWritePerm is wipeWritePerm / addWritePerm: the request goes to each
// NameServer and each gets a line "<verb> write perm of broker[..] in name
// server[..] OK, <count>" or "... Failed".
func setupWritePerm(fs *flag.FlagSet, verb string,
	call func(*admin.Client, context.Context, string, string) (int, error)) runFunc {
	var broker string
	strFlag(fs, &broker, "b", "brokerName", "broker name")
	return func(e *env) error {
		addrs, err := e.nameServers()
		if err == nil {
			err = required(opt("b", &broker))
		}
		if err != nil {
			return err
		}
		res, err := fanOut(addrs, func(a string) (*int, error) {
			n, err := call(e.client, e.ctx, a, broker)
			if err != nil {
				return nil, err
			}
			return &n, nil
		})
		if e.json {
			return fanOutJSON(e, map[string]any{"brokerName": broker}, res, err)
		}
		for _, r := range res {
			if r.OK {
				e.printf("%s write perm of broker[%s] in name server[%s] OK, %d\n", verb, broker, r.Addr, *r.Count)
			} else {
				e.printf("%s write perm of broker[%s] in name server[%s] Failed\n", verb, broker, r.Addr)
			}
		}
		return failedOn(res, err)
	}
}
