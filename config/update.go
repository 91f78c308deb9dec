package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Keys never changeable remotely, whatever configBlackList says.
var (
	namesrvFixedBlackList    = []string{"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"}
	controllerFixedBlackList = []string{"configBlackList", "configStorePath", "rocketmqHome", "controllerStorePath"}
	// pathLikeSuffixes close the CVE-2023-33246 class: no key naming a file,
	// directory or home can be changed by an update (compared lower-cased).
	pathLikeSuffixes = []string{"path", "dir", "home"}
)

func blackListOf(configBlackList string, fixed []string) map[string]struct{} {
	m := make(map[string]struct{})
	for _, k := range fixed {
		m[k] = struct{}{}
	}
	for k := range strings.SplitSeq(configBlackList, ";") {
		if k = strings.TrimSpace(k); k != "" {
			m[k] = struct{}{}
		}
	}
	return m
}

func isBlackListed(bl map[string]struct{}, key string) bool {
	if _, ok := bl[strings.TrimSpace(key)]; ok {
		return true
	}
	lower := strings.ToLower(strings.TrimSpace(key))
	return slices.ContainsFunc(pathLikeSuffixes, func(s string) bool {
		return strings.HasSuffix(lower, s)
	})
}

func blackListedKeys(bl map[string]struct{}, props map[string]string) []string {
	var bad []string
	for k := range props {
		if isBlackListed(bl, k) {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad)
	return bad
}

// IsBlackListed reports whether UPDATE_NAMESRV_CONFIG may not change key:
// {configBlackList, configStorePath, kvConfigPath, rocketmqHome}, the
// configBlackList read at load time, and any key ending in Path, Dir or Home.
func (c *Namesrv) IsBlackListed(key string) bool { return isBlackListed(c.blackList, key) }

// IsBlackListed reports whether UPDATE_CONTROLLER_CONFIG may not change key.
func (cc *ControllerConfig) IsBlackListed(key string) bool {
	return isBlackListed(cc.blackList, key)
}

// ApplyUpdate applies an UPDATE_NAMESRV_CONFIG body (Java properties text)
// to a clone and returns it; c is unchanged. As in Java: a black-listed key
// fails the whole update (ErrBlackListed); known keys are set, values that do
// not parse are ignored; keys of the -c file are updated; other unknown keys
// are dropped (Java's Configuration.mergeIfExist). Unlike Java, an update
// that would leave the config invalid (and so unable to restart once
// persisted) is refused with ErrRejectedUpdate.
func (c *Namesrv) ApplyUpdate(text []byte) (*Namesrv, error) {
	props, err := parseUpdate(text, c.blackList)
	if err != nil {
		return nil, err
	}
	n := c.Clone()
	_ = applyProps(bindings(n), props)
	mergeIfExist(n.raw, props)
	if err := n.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejectedUpdate, err)
	}
	return n, nil
}

// ApplyControllerUpdate applies an UPDATE_CONTROLLER_CONFIG body to the
// embedded controller's config with the controller's black list.
func (c *Namesrv) ApplyControllerUpdate(text []byte) (*Namesrv, error) {
	props, err := parseUpdate(text, c.Controller.blackList)
	if err != nil {
		return nil, err
	}
	n := c.Clone()
	n.Controller.update(props)
	if err := n.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejectedUpdate, err)
	}
	return n, nil
}

// ApplyUpdate applies an UPDATE_CONTROLLER_CONFIG body to a clone of a
// standalone controller's config (rules as Namesrv.ApplyUpdate).
func (cc *ControllerConfig) ApplyUpdate(text []byte) (*ControllerConfig, error) {
	props, err := parseUpdate(text, cc.blackList)
	if err != nil {
		return nil, err
	}
	n := cc.Clone()
	n.update(props)
	if err := n.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejectedUpdate, err)
	}
	return n, nil
}

func (cc *ControllerConfig) update(props map[string]string) {
	_ = applyProps(bindings(cc), props)
	mergeIfExist(cc.raw, props)
}

func parseUpdate(text []byte, bl map[string]struct{}) (map[string]string, error) {
	props, err := parseProperties(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadProperties, err)
	}
	if bad := blackListedKeys(bl, props); len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrBlackListed, strings.Join(bad, ", "))
	}
	return props, nil
}

func mergeIfExist(raw, props map[string]string) {
	for k, v := range props {
		if _, ok := raw[k]; ok {
			raw[k] = v
		}
	}
}

// joinUnique joins errs, dropping repeated messages (a key shared by the
// NameServer and the controller is reported once).
func joinUnique(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, e := range errs {
		if msg := e.Error(); !seen[msg] {
			seen[msg] = true
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}
