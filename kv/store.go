package kv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

const (
	nsPrefix  = "ns:"
	keyPrefix = "k"
	metaName  = "meta"
	// lockTimeout bounds the wait for bbolt's file lock, so a second process
	// on the same file fails instead of hanging.
	lockTimeout = 2 * time.Second
)

// Store is the durable KV config table. It is safe for concurrent use:
// writes are serialized and committed to disk before they become visible,
// reads are served from memory.
type Store struct {
	db     *bolt.DB
	path   string
	logger hclog.Logger

	writeMu sync.Mutex // serializes commit + memory publish, so both agree on order
	mu      sync.RWMutex
	table   map[string]map[string]string
	closed  bool
}

// Open opens (creating if needed) the bbolt file at path without any Java
// import. A nil logger discards logs.
func Open(path string, logger hclog.Logger) (*Store, error) {
	return OpenWithImport(path, "", logger)
}

// OpenKVConfigPath opens DBPath(kvConfigPath) and imports the Java JSON found
// at kvConfigPath once (see OpenWithImport).
func OpenKVConfigPath(kvConfigPath string, logger hclog.Logger) (*Store, error) {
	return OpenWithImport(DBPath(kvConfigPath), kvConfigPath, logger)
}

// OpenWithImport opens the bbolt file at dbPath. If javaJSONPath is not empty,
// names an existing file, and the db has no import marker, the Java
// kvConfig.json there is imported in one transaction together with the
// marker; its entries overwrite equal keys already in the db. A corrupt JSON
// fails the open with ErrImport naming the file.
func OpenWithImport(dbPath, javaJSONPath string, logger hclog.Logger) (*Store, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	db, err := openDB(dbPath)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: dbPath, logger: logger}
	if err := s.init(javaJSONPath); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

func openDB(path string) (*bolt.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrOpen, path, err)
	}
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: lockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s (is another process using it?): %w", ErrOpen, path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrOpen, path, err)
	}
	return db, nil
}

func (s *Store) init(javaJSONPath string) error {
	if javaJSONPath != "" {
		if err := s.importJava(javaJSONPath); err != nil {
			return err
		}
	}
	table, err := loadTable(s.db)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrOpen, s.path, err)
	}
	s.table = table
	return nil
}

// loadTable reads every namespace bucket into memory.
func loadTable(db *bolt.DB) (map[string]map[string]string, error) {
	table := make(map[string]map[string]string)
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			ns, ok := namespaceOf(name)
			if !ok {
				return nil
			}
			kvs := make(map[string]string)
			table[ns] = kvs
			return b.ForEach(func(k, v []byte) error {
				kvs[string(k[len(keyPrefix):])] = string(v)
				return nil
			})
		})
	})
	return table, err
}

func bucketName(ns string) []byte { return []byte(nsPrefix + ns) }

func keyName(key string) []byte { return []byte(keyPrefix + key) }

func namespaceOf(bucket []byte) (string, bool) {
	name := string(bucket)
	if len(name) < len(nsPrefix) || name[:len(nsPrefix)] != nsPrefix {
		return "", false
	}
	return name[len(nsPrefix):], true
}

// Close closes the bbolt file. Later writes fail with ErrClosed; reads keep
// answering from memory. Close is idempotent.
func (s *Store) Close() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close %s: %w", s.path, err)
	}
	return nil
}

// Path returns the bbolt file path.
func (s *Store) Path() string { return s.path }
