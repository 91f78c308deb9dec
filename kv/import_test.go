package kv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const javaJSON = `{
	"configTable":{
		"ORDER_TOPIC_CONFIG":{"TopicA":"broker-a:4;broker-b:4","TopicB":"broker-a:8"},
		"emptyNs":{},
		"nullNs":{"k":null}
	}
}`

func TestJavaImportHappensOnce(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "kvConfig.json")
	require.NoError(t, os.WriteFile(jsonPath, []byte(javaJSON), 0o644))

	s, err := OpenKVConfigPath(jsonPath, testLogger(t))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "kvConfig.db"), s.Path())
	v, ok := s.Get("ORDER_TOPIC_CONFIG", "TopicA")
	require.True(t, ok)
	require.Equal(t, "broker-a:4;broker-b:4", v)
	for _, ns := range []string{"emptyNs", "nullNs"} {
		list, ok := s.List(ns)
		require.True(t, ok, ns)
		require.Empty(t, list, ns)
	}
	require.NoError(t, s.Delete("ORDER_TOPIC_CONFIG", "TopicB"))
	require.NoError(t, s.Close())

	// Changing the JSON afterwards must not re-import it.
	changed := `{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicB":"x","TopicC":"y"}}}`
	require.NoError(t, os.WriteFile(jsonPath, []byte(changed), 0o644))
	s2, err := OpenKVConfigPath(jsonPath, testLogger(t))
	require.NoError(t, err)
	defer s2.Close()
	_, ok = s2.Get("ORDER_TOPIC_CONFIG", "TopicB")
	require.False(t, ok, "deleted key must not come back from the json")
	_, ok = s2.Get("ORDER_TOPIC_CONFIG", "TopicC")
	require.False(t, ok)
}

func TestImportMissingJSONIsEmpty(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenKVConfigPath(filepath.Join(dir, "kvConfig.json"), testLogger(t))
	require.NoError(t, err)
	defer s.Close()
	ns, keys := s.Namespaces()
	require.Zero(t, ns)
	require.Zero(t, keys)
}

func TestImportBlankJSONIsEmpty(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "kvConfig.json")
	require.NoError(t, os.WriteFile(jsonPath, []byte("  \n"), 0o644))
	s, err := OpenKVConfigPath(jsonPath, testLogger(t))
	require.NoError(t, err)
	defer s.Close()
	ns, _ := s.Namespaces()
	require.Zero(t, ns)
}

func TestImportCorruptJSONFails(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "kvConfig.json")
	require.NoError(t, os.WriteFile(jsonPath, []byte(`{"configTable":{"ns":`), 0o644))
	_, err := OpenKVConfigPath(jsonPath, testLogger(t))
	require.ErrorIs(t, err, ErrImport)
	require.Contains(t, err.Error(), jsonPath)

	// The failed open released the file and left no marker: a fixed JSON imports.
	require.NoError(t, os.WriteFile(jsonPath, []byte(javaJSON), 0o644))
	s, err := OpenKVConfigPath(jsonPath, testLogger(t))
	require.NoError(t, err)
	defer s.Close()
	_, ok := s.Get("ORDER_TOPIC_CONFIG", "TopicA")
	require.True(t, ok)
}
