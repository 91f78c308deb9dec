package kv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

var markerKey = []byte("imported")

// javaKV is Java's KVConfigSerializeWrapper. A null value (Java's PUT with a
// missing value) creates the namespace only.
type javaKV struct {
	ConfigTable map[string]map[string]*string `json:"configTable"`
}

// importMarker is the record kept under meta/imported.
type importMarker struct {
	Source     string    `json:"source"`
	Namespaces int       `json:"namespaces"`
	Keys       int       `json:"keys"`
	ImportedAt time.Time `json:"importedAt"`
}

// importJava imports the Java JSON at path once; a missing file is no error.
func (s *Store) importJava(path string) error {
	done, err := s.imported()
	if err != nil || done {
		return err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrImport, path, err)
	}
	table, err := parseJavaKV(data)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrImport, path, err)
	}
	marker, err := s.writeImport(path, table)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrImport, path, err)
	}
	s.logger.Info("imported java kv config", "path", path, "db", s.path,
		"namespaces", marker.Namespaces, "keys", marker.Keys)
	return nil
}

func (s *Store) imported() (bool, error) {
	var done bool
	err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(metaName)); b != nil {
			done = b.Get(markerKey) != nil
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", ErrOpen, s.path, err)
	}
	return done, nil
}

// parseJavaKV decodes kvConfig.json; an empty or blank file is an empty table
// (Java treats it the same way).
func parseJavaKV(data []byte) (map[string]map[string]*string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var w javaKV
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("invalid kvConfig json: %w", err)
	}
	return w.ConfigTable, nil
}

// writeImport stores the table and the marker in one transaction.
func (s *Store) writeImport(path string, table map[string]map[string]*string) (importMarker, error) {
	m := importMarker{Source: path, Namespaces: len(table), ImportedAt: time.Now().UTC()}
	err := s.db.Update(func(tx *bolt.Tx) error {
		for ns, kvs := range table {
			n, err := putNamespace(tx, ns, kvs)
			if err != nil {
				return err
			}
			m.Keys += n
		}
		return putMarker(tx, m)
	})
	return m, err
}

func putNamespace(tx *bolt.Tx, ns string, kvs map[string]*string) (int, error) {
	b, err := tx.CreateBucketIfNotExists(bucketName(ns))
	if err != nil {
		return 0, err
	}
	n := 0
	for k, v := range kvs {
		if v == nil {
			continue
		}
		if err := b.Put(keyName(k), []byte(*v)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func putMarker(tx *bolt.Tx, m importMarker) error {
	b, err := tx.CreateBucketIfNotExists([]byte(metaName))
	if err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Put(markerKey, data)
}
