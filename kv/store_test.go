package kv

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPutGetDeleteList(t *testing.T) {
	s, _ := openTemp(t)
	require.NoError(t, s.Put("ORDER_TOPIC_CONFIG", "T1", "b1:4;b2:4"))
	require.NoError(t, s.Put("ORDER_TOPIC_CONFIG", "T2", "b1:8"))
	require.NoError(t, s.Put("ns2", "k", "v"))

	v, ok := s.Get("ORDER_TOPIC_CONFIG", "T1")
	require.True(t, ok)
	require.Equal(t, "b1:4;b2:4", v)

	_, ok = s.Get("ORDER_TOPIC_CONFIG", "missing")
	require.False(t, ok)
	_, ok = s.Get("missing", "T1")
	require.False(t, ok)

	list, ok := s.List("ORDER_TOPIC_CONFIG")
	require.True(t, ok)
	require.Equal(t, map[string]string{"T1": "b1:4;b2:4", "T2": "b1:8"}, list)

	require.NoError(t, s.Put("ORDER_TOPIC_CONFIG", "T1", "b3:1"))
	v, _ = s.Get("ORDER_TOPIC_CONFIG", "T1")
	require.Equal(t, "b3:1", v)

	require.NoError(t, s.Delete("ORDER_TOPIC_CONFIG", "T2"))
	_, ok = s.Get("ORDER_TOPIC_CONFIG", "T2")
	require.False(t, ok)
	require.NoError(t, s.Delete("nope", "nope"), "deleting unknown keys is a no-op")
}

func TestListReturnsCopy(t *testing.T) {
	s, _ := openTemp(t)
	require.NoError(t, s.Put("ns", "k", "v"))
	list, _ := s.List("ns")
	list["k"] = "changed"
	v, _ := s.Get("ns", "k")
	require.Equal(t, "v", v)
}

func TestEmptiedNamespaceSurvives(t *testing.T) {
	s, path := openTemp(t)
	require.NoError(t, s.Put("ns", "k", "v"))
	require.NoError(t, s.Delete("ns", "k"))
	list, ok := s.List("ns")
	require.True(t, ok)
	require.Empty(t, list)

	require.NoError(t, s.Close())
	s2, err := Open(path, testLogger(t))
	require.NoError(t, err)
	defer s2.Close()
	list, ok = s2.List("ns")
	require.True(t, ok, "emptied namespace must survive a restart")
	require.Empty(t, list)
}

func TestEnsureNamespace(t *testing.T) {
	s, _ := openTemp(t)
	_, ok := s.List("ns")
	require.False(t, ok)
	require.NoError(t, s.EnsureNamespace("ns"))
	list, ok := s.List("ns")
	require.True(t, ok)
	require.Empty(t, list)
}

func TestEmptyNamespaceAndKeyAllowed(t *testing.T) {
	s, path := openTemp(t)
	require.NoError(t, s.Put("", "", "v"))
	require.NoError(t, s.Close())
	s2, err := Open(path, testLogger(t))
	require.NoError(t, err)
	defer s2.Close()
	v, ok := s2.Get("", "")
	require.True(t, ok)
	require.Equal(t, "v", v)
}

func TestReopenShowsData(t *testing.T) {
	s, path := openTemp(t)
	for i := range 20 {
		require.NoError(t, s.Put(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)))
	}
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "close is idempotent")
	require.ErrorIs(t, s.Put("a", "b", "c"), ErrClosed)

	s2, err := Open(path, testLogger(t))
	require.NoError(t, err)
	defer s2.Close()
	for i := range 20 {
		v, ok := s2.Get(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("k%d", i))
		require.True(t, ok)
		require.Equal(t, fmt.Sprintf("v%d", i), v)
	}
	ns, keys := s2.Namespaces()
	require.Equal(t, 3, ns)
	require.Equal(t, 20, keys)
}

func TestSecondOpenFailsWhileLocked(t *testing.T) {
	_, path := openTemp(t)
	_, err := Open(path, testLogger(t))
	require.ErrorIs(t, err, ErrOpen)
	require.Contains(t, err.Error(), path)
}

func TestConcurrentPutGet(t *testing.T) {
	s, _ := openTemp(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 25 {
				require.NoError(t, s.Put("ns", fmt.Sprintf("w%d-%d", w, i), "v"))
			}
		}()
		go func() {
			defer wg.Done()
			for i := range 200 {
				s.Get("ns", fmt.Sprintf("w%d-%d", w, i%25))
				s.List("ns")
			}
		}()
	}
	wg.Wait()
	list, _ := s.List("ns")
	require.Len(t, list, 100)
}

func TestDBPath(t *testing.T) {
	require.Equal(t, "/h/namesrv/kvConfig.db", DBPath("/h/namesrv/kvConfig.json"))
	require.Equal(t, "/h/kv.conf.db", DBPath("/h/kv.conf"))
}
