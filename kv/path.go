package kv

import "strings"

// DBPath returns the bbolt file used for a Java kvConfigPath: a trailing
// ".json" is replaced by ".db", any other path gets ".db" appended.
// "/home/u/namesrv/kvConfig.json" → "/home/u/namesrv/kvConfig.db".
func DBPath(kvConfigPath string) string {
	if base, ok := strings.CutSuffix(kvConfigPath, ".json"); ok {
		return base + ".db"
	}
	return kvConfigPath + ".db"
}
