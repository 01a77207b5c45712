package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/bramble-edge/bramble/durable"

	"github.com/bramble-edge/bramble/mqtt"
)

// Store is the agent's local copy of its view: the pods bound to this node,
// the ConfigMaps and Secrets they reference, and the revision they are at.
// It lives in <data-dir>/agent/state as one JSON file per object plus a
// file "rev", each written atomically (temporary file, fsync, rename, fsync
// of the directory). A node's view is a few dozen small objects that change
// rarely; plain files keep the agent free of a database, are easy to
// inspect on a Pi, and survive power loss one object at a time.
//
// Objects are written before the revision, so a crash between the two
// leaves an older revision on disk: the MQTT client then asks the server
// for a catch-up from there, and upserts are idempotent.
type Store struct {
	dir string

	mu      sync.Mutex
	rev     int64
	objects map[mqtt.ObjectRef]json.RawMessage
}

const revFile = "rev"

// OpenStore loads the store in dir, creating dir (0700) if missing.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("local store %s: %w", dir, err)
	}
	s := &Store{dir: dir, objects: map[mqtt.ObjectRef]json.RawMessage{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("local store %s: %w", dir, err)
	}
	for _, e := range entries {
		if err := s.load(e.Name()); err != nil {
			return nil, fmt.Errorf("local store %s: %w", dir, err)
		}
	}
	return s, nil
}

func (s *Store) load(name string) error {
	switch {
	case name == revFile:
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil {
			return err
		}
		rev, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || rev < 0 {
			return fmt.Errorf("%s: got %q, want a revision", name, b)
		}
		s.rev = rev
	case strings.HasSuffix(name, ".json"):
		ref, ok := parseFileName(name)
		if !ok {
			return fmt.Errorf("%s: not a store file name", name)
		}
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil {
			return err
		}
		if !json.Valid(b) {
			return fmt.Errorf("%s: not valid JSON", name)
		}
		s.objects[ref] = b
	}
	return nil // temporary files of an interrupted write are ignored
}

// fileName maps a ref to its file: resource_namespace_name.json. Names and
// namespaces are DNS names (checked by mqtt's decoders), so they hold no
// "_" or "/".
func fileName(ref mqtt.ObjectRef) string {
	return ref.Resource + "_" + ref.Namespace + "_" + ref.Name + ".json"
}

func parseFileName(name string) (mqtt.ObjectRef, bool) {
	parts := strings.Split(strings.TrimSuffix(name, ".json"), "_")
	if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
		return mqtt.ObjectRef{}, false
	}
	return mqtt.ObjectRef{Resource: parts[0], Namespace: parts[1], Name: parts[2]}, true
}

// Rev is the revision of the view the store holds (0: nothing yet).
func (s *Store) Rev() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev
}

// Get returns one object's JSON.
func (s *Store) Get(ref mqtt.ObjectRef) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objects[ref]
	return b, ok
}

// List returns every object of one resource.
func (s *Store) List(resource string) map[mqtt.ObjectRef]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[mqtt.ObjectRef]json.RawMessage{}
	for ref, b := range s.objects {
		if ref.Resource == resource {
			out[ref] = b
		}
	}
	return out
}

// Apply writes one event's changes, then its revision.
func (s *Store) Apply(changes []mqtt.Change, rev int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range changes {
		if err := s.write(c); err != nil {
			return err
		}
	}
	return s.writeRev(rev)
}

// Replace makes the store hold exactly objects (all ADDED) at rev.
func (s *Store) Replace(objects []mqtt.Change, rev int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[mqtt.ObjectRef]bool, len(objects))
	for _, c := range objects {
		keep[c.ObjectRef] = true
		if err := s.write(c); err != nil {
			return err
		}
	}
	for ref := range s.objects {
		if !keep[ref] {
			if err := s.write(mqtt.Change{Type: mqtt.Deleted, ObjectRef: ref}); err != nil {
				return err
			}
		}
	}
	return s.writeRev(rev)
}

func (s *Store) write(c mqtt.Change) error {
	path := filepath.Join(s.dir, fileName(c.ObjectRef))
	if c.Type == mqtt.Deleted {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("local store: remove %s: %w", c.ObjectRef, err)
		}
		delete(s.objects, c.ObjectRef)
		return durable.SyncDir(s.dir)
	}
	if len(c.Object) == 0 {
		return fmt.Errorf("local store: %s %s carries no object", c.Type, c.ObjectRef)
	}
	if err := writeFileAtomic(path, c.Object, 0o600); err != nil {
		return fmt.Errorf("local store: write %s: %w", c.ObjectRef, err)
	}
	s.objects[c.ObjectRef] = append(json.RawMessage(nil), c.Object...)
	return nil
}

func (s *Store) writeRev(rev int64) error {
	if rev == s.rev {
		return nil
	}
	if err := writeFileAtomic(filepath.Join(s.dir, revFile), []byte(strconv.FormatInt(rev, 10)+"\n"), 0o600); err != nil {
		return fmt.Errorf("local store: write revision %d: %w", rev, err)
	}
	s.rev = rev
	return nil
}
