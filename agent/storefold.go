package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/bramble-edge/bramble/durable"
	"github.com/bramble-edge/bramble/mqtt"
)

// Replace makes the store hold exactly objects (all ADDED) at rev: a
// resync. The journal is emptied first, so until the files are rewritten
// the disk holds the last fold, an older revision; objects whose file
// already holds them are not written again.
func (s *Store) Replace(objects []mqtt.Change, rev int64) error {
	for _, c := range objects {
		if len(c.Object) == 0 {
			return fmt.Errorf("local store: %s %s carries no object", c.Type, c.ObjectRef)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.j.reset(); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	touched, err := s.rewrite(objects)
	if err == nil {
		err = s.writeRev(rev)
	}
	if err != nil {
		for ref := range touched {
			s.dirty[ref] = true // the files may hold either version now
		}
		return err
	}
	s.objects = map[mqtt.ObjectRef]json.RawMessage{}
	for _, c := range objects {
		s.objects[c.ObjectRef] = append(json.RawMessage(nil), c.Object...)
	}
	s.rev, s.dirty = rev, map[mqtt.ObjectRef]bool{}
	return nil
}

// rewrite writes the files of objects that differ from what their file
// holds and removes the files of every other object, and returns the refs
// it touched.
func (s *Store) rewrite(objects []mqtt.Change) (map[mqtt.ObjectRef]bool, error) {
	touched := map[mqtt.ObjectRef]bool{}
	for _, c := range objects {
		touched[c.ObjectRef] = true
		if !s.dirty[c.ObjectRef] && bytes.Equal(s.objects[c.ObjectRef], c.Object) {
			continue
		}
		if err := s.writeObject(c.ObjectRef, c.Object); err != nil {
			return touched, err
		}
	}
	var gone []mqtt.ObjectRef
	for ref := range s.objects {
		if !touched[ref] {
			gone = append(gone, ref)
		}
	}
	for ref := range s.dirty {
		if _, ok := s.objects[ref]; !ok && !touched[ref] {
			gone = append(gone, ref) // deleted since the last fold: its file may remain
		}
	}
	for _, ref := range gone {
		touched[ref] = true
		if err := s.removeObject(ref); err != nil {
			return touched, err
		}
	}
	return touched, nil
}

// fold writes every object the journal changed to its file (or removes
// it), then the revision, then empties the journal.
func (s *Store) fold() error {
	for ref := range s.dirty {
		var err error
		if obj, ok := s.objects[ref]; ok {
			err = s.writeObject(ref, obj)
		} else {
			err = s.removeObject(ref)
		}
		if err != nil {
			return err
		}
	}
	if err := s.writeRev(s.rev); err != nil {
		return err
	}
	if err := s.j.reset(); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	s.dirty = map[mqtt.ObjectRef]bool{}
	return nil
}

// writeObject replaces ref's file; the folder is synced by writeRev.
func (s *Store) writeObject(ref mqtt.ObjectRef, obj []byte) error {
	if err := durable.WriteFile(filepath.Join(s.dir, fileName(ref)), obj, 0o600); err != nil {
		return fmt.Errorf("local store: write %s: %w", ref, err)
	}
	return nil
}

func (s *Store) removeObject(ref mqtt.ObjectRef) error {
	if err := os.Remove(filepath.Join(s.dir, fileName(ref))); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("local store: remove %s: %w", ref, err)
	}
	return nil
}

// writeRev makes the object files written so far durable (folder fsync),
// then writes the revision file after them.
func (s *Store) writeRev(rev int64) error {
	if err := durable.SyncDir(s.dir); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(s.dir, revFile), []byte(strconv.FormatInt(rev, 10)+"\n"), 0o600); err != nil {
		return fmt.Errorf("local store: write revision %d: %w", rev, err)
	}
	return nil
}
