package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/bramble-edge/bramble/mqtt"
)

// Store is the agent's local copy of its view: the pods bound to this node,
// the ConfigMaps and Secrets they reference, and the revision they are at.
// It lives in <data-dir>/agent/state as one JSON file per object plus a
// file "rev", and a journal of the events applied since those files were
// last written (journal.go). A node's view is a few dozen small objects;
// plain files keep the agent free of a database, are easy to inspect on a
// Pi, and survive power loss.
//
// Applying events appends them to the journal with one fsync, however many
// arrive together. When the journal passes FoldBytes the store writes the
// objects it changed to their files (each atomically: temporary file,
// fsync, rename), fsyncs the folder, then the revision, then empties the
// journal. Opening replays the journal over the files and folds it.
// Objects are written before the revision, and a journal is only emptied
// once the files hold all it says: a crash leaves an older revision (the
// MQTT client then asks the server for a catch-up from there, and upserts
// are idempotent) or a journal to replay.
type Store struct {
	dir string

	mu      sync.Mutex
	rev     int64
	objects map[mqtt.ObjectRef]json.RawMessage
	j       *journal
	// dirty: objects whose file may differ from objects (the journal has
	// changes to them that no fold has written yet).
	dirty     map[mqtt.ObjectRef]bool
	foldBytes int64
}

// FoldBytes is how large the journal grows before the store writes the
// changed objects to their files and empties it.
const FoldBytes = 1 << 20

// Files in the store's folder.
const (
	revFile     = "rev"
	journalFile = "journal"
)

// OpenStore loads the store in dir, creating dir (0700) if missing, and
// replays and folds its journal. Close releases the journal.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("local store %s: %w", dir, err)
	}
	s := &Store{dir: dir, objects: map[mqtt.ObjectRef]json.RawMessage{}, dirty: map[mqtt.ObjectRef]bool{}, foldBytes: FoldBytes}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("local store %s: %w", dir, err)
	}
	for _, e := range entries {
		if err := s.load(e.Name()); err != nil {
			return nil, fmt.Errorf("local store %s: %w", dir, err)
		}
	}
	j, recs, err := openJournal(filepath.Join(dir, journalFile), dir)
	if err != nil {
		return nil, fmt.Errorf("local store %s: %w", dir, err)
	}
	s.j = j
	for _, rec := range recs {
		s.remember(rec.Changes, rec.Rev)
	}
	if len(recs) > 0 {
		err = s.fold()
	}
	if err != nil {
		j.close()
		return nil, fmt.Errorf("local store %s: %w", dir, err)
	}
	return s, nil
}

// Close releases the journal; the Store must not be used afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.j.close()
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

// Apply makes one event's changes durable, then its revision.
func (s *Store) Apply(changes []mqtt.Change, rev int64) error {
	return s.ApplyEvents([]mqtt.Event{{Type: mqtt.EventChanges, Rev: rev, Changes: changes}})
}

// ApplyEvents makes several events' changes and revisions durable with one
// journal append (one fsync), in order.
func (s *Store) ApplyEvents(evs []mqtt.Event) error {
	if len(evs) == 0 {
		return nil
	}
	recs := make([]journalRecord, 0, len(evs))
	for _, ev := range evs {
		for _, c := range ev.Changes {
			if c.Type != mqtt.Deleted && len(c.Object) == 0 {
				return fmt.Errorf("local store: %s %s carries no object", c.Type, c.ObjectRef)
			}
		}
		recs = append(recs, journalRecord{Rev: ev.Rev, Changes: ev.Changes})
	}
	data, err := encodeRecords(recs)
	if err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.j.append(data); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	for _, rec := range recs {
		s.remember(rec.Changes, rec.Rev)
	}
	if s.j.size < s.foldBytes {
		return nil
	}
	return s.fold()
}

// remember applies changes at rev to the objects in memory.
func (s *Store) remember(changes []mqtt.Change, rev int64) {
	for _, c := range changes {
		s.dirty[c.ObjectRef] = true
		if c.Type == mqtt.Deleted {
			delete(s.objects, c.ObjectRef)
		} else {
			s.objects[c.ObjectRef] = append(json.RawMessage(nil), c.Object...)
		}
	}
	s.rev = max(s.rev, rev)
}
