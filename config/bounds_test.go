package config

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryNumericKeyIsBounded: every int and long key of both configs has
// an entry in numericBounds, and its default lies within it.
func TestEveryNumericKeyIsBounded(t *testing.T) {
	c := Default()
	for _, bs := range [][]binding{bindings(c), bindings(&c.Controller)} {
		for _, b := range bs {
			if !isIntKind(b.v.Kind()) {
				continue
			}
			bd, ok := numericBounds[b.key]
			require.True(t, ok, "%s has no bounds", b.key)
			require.LessOrEqual(t, bd.lo, b.v.Int(), b.key)
			require.GreaterOrEqual(t, bd.hi, b.v.Int(), b.key)
		}
	}
	require.NoError(t, loadControllerMust(t).Validate())
}

// TestBoundsAtStartupAndOnUpdate: one value past either end of every bound
// fails Validate at startup and is refused by an update, naming the key and
// the rule, on the NameServer and on a standalone controller alike.
func TestBoundsAtStartupAndOnUpdate(t *testing.T) {
	for key, bd := range numericBounds {
		for _, v := range []int64{bd.lo - 1, bd.hi + 1} {
			line := fmt.Sprintf("%s=%d\n", key, v)
			rule := fmt.Sprintf("%s (%d) must be between %d and %d", key, v, bd.lo, bd.hi)
			cc, err := LoadController(controllerFile(t, line))
			require.NoError(t, err)
			if hasBinding(bindings(cc), key) {
				requireKeysNamed(t, cc.Validate(), rule)
				requireUpdateRefused(t, cc.IsBlackListed(key), line, rule, func() error {
					_, err := loadControllerMust(t).ApplyUpdate([]byte(line))
					return err
				})
			}
			if c := Default(); hasBinding(bindings(c), key) {
				n, err := Load(writeFile(t, "n.properties", line))
				require.NoError(t, err)
				requireKeysNamed(t, n.Validate(), rule)
				requireUpdateRefused(t, c.IsBlackListed(key), line, rule, func() error {
					_, err := c.ApplyUpdate([]byte(line))
					return err
				})
			}
		}
	}
}

// requireUpdateRefused: a black-listed key is refused as such, any other
// out-of-bounds value as a rejected update naming the rule.
func requireUpdateRefused(t *testing.T, blackListed bool, line, rule string, update func() error) {
	t.Helper()
	err := update()
	if blackListed {
		require.ErrorIs(t, err, ErrBlackListed, line)
		return
	}
	require.ErrorIs(t, err, ErrRejectedUpdate, line)
	requireKeysNamed(t, err, rule)
}

// loadControllerMust loads a valid standalone controller config.
func loadControllerMust(t *testing.T) *ControllerConfig {
	t.Helper()
	cc, err := LoadController(controllerFile(t, ""))
	require.NoError(t, err)
	return cc
}

// TestUnRegisterBrokerQueueCapacityBounded: the value that made the next
// start allocate a channel of 2^31-1 entries is refused at load and update.
func TestUnRegisterBrokerQueueCapacityBounded(t *testing.T) {
	_, err := Default().ApplyUpdate([]byte("unRegisterBrokerQueueCapacity=2147483647"))
	require.Error(t, err)
	c, err := Load(writeFile(t, "n.properties", "unRegisterBrokerQueueCapacity=2147483647\n"))
	require.NoError(t, err)
	requireKeysNamed(t, c.Validate(), "unRegisterBrokerQueueCapacity (2147483647) must be between 1 and 100000")
}

func hasBinding(bs []binding, key string) bool {
	for _, b := range bs {
		if b.key == key {
			return true
		}
	}
	return false
}
