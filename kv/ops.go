package kv

import (
	"fmt"
	"maps"

	bolt "go.etcd.io/bbolt"
)

// Put stores value under ns/key, creating the namespace if needed. It
// returns only after the bbolt commit (fsync), so the write is durable.
func (s *Store) Put(ns, key, value string) error {
	err := s.write(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketName(ns))
		if err != nil {
			return err
		}
		return b.Put(keyName(key), []byte(value))
	}, func() {
		s.namespace(ns)[key] = value
	})
	if err != nil {
		return fmt.Errorf("put %q/%q: %w", ns, key, err)
	}
	return nil
}

// Delete removes ns/key. Deleting an unknown key or namespace is a no-op.
// An emptied namespace is kept, as Java does.
func (s *Store) Delete(ns, key string) error {
	err := s.write(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketName(ns))
		if b == nil {
			return nil
		}
		return b.Delete(keyName(key))
	}, func() {
		if kvs, ok := s.table[ns]; ok {
			delete(kvs, key)
		}
	})
	if err != nil {
		return fmt.Errorf("delete %q/%q: %w", ns, key, err)
	}
	return nil
}

// EnsureNamespace creates ns without any key (Java's PUT_KV_CONFIG with a
// missing value). It is durable on return like Put.
func (s *Store) EnsureNamespace(ns string) error {
	err := s.write(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketName(ns))
		return err
	}, func() {
		s.namespace(ns)
	})
	if err != nil {
		return fmt.Errorf("ensure namespace %q: %w", ns, err)
	}
	return nil
}

// Get returns the value of ns/key from memory.
func (s *Store) Get(ns, key string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.table[ns][key]
	return v, ok
}

// List returns a copy of the namespace's table, false if it is unknown.
func (s *Store) List(ns string) (map[string]string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	kvs, ok := s.table[ns]
	if !ok {
		return nil, false
	}
	return maps.Clone(kvs), true
}

// Namespaces returns the number of namespaces and keys held.
func (s *Store) Namespaces() (namespaces, keys int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, kvs := range s.table {
		keys += len(kvs)
	}
	return len(s.table), keys
}

// write commits fn in one bbolt transaction and, only once it is durable,
// applies publish to memory under the write lock.
func (s *Store) write(fn func(*bolt.Tx) error, publish func()) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.db.Update(fn); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWrite, s.path, err)
	}
	s.mu.Lock()
	publish()
	s.mu.Unlock()
	return nil
}

// namespace returns the in-memory map of ns, creating it. Callers hold s.mu.
func (s *Store) namespace(ns string) map[string]string {
	kvs, ok := s.table[ns]
	if !ok {
		kvs = make(map[string]string)
		s.table[ns] = kvs
	}
	return kvs
}
