package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// countSyncs makes s's journal count its fsyncs.
func countSyncs(s *Store) *int {
	n := new(int)
	s.j.sync = func(f *os.File) error {
		*n++
		return f.Sync()
	}
	return n
}

func podEvent(t testing.TB, rev int64, typ mqtt.ChangeType, name, uid string) mqtt.Event {
	t.Helper()
	c := change(t, typ, ref("pods", "default", name), nil)
	if typ != mqtt.Deleted {
		c = change(t, typ, ref("pods", "default", name), testPod(name, uid))
	}
	return mqtt.Event{Type: mqtt.EventChanges, Rev: rev, Changes: []mqtt.Change{c}}
}

func TestStoreAppliesABatchWithOneFsync(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	syncs := countSyncs(s)
	err := s.ApplyEvents([]mqtt.Event{podEvent(t, 4, mqtt.Added, "a", "ua"), podEvent(t, 6, mqtt.Added, "b", "ub"),
		podEvent(t, 9, mqtt.Deleted, "a", "")})
	if err != nil {
		t.Fatal(err)
	}
	if *syncs != 1 {
		t.Errorf("fsyncs for a batch of 3 events: got %d, want 1", *syncs)
	}
	if err := s.Apply(podEvent(t, 11, mqtt.Modified, "b", "ub2").Changes, 11); err != nil {
		t.Fatal(err)
	}
	if *syncs != 2 {
		t.Errorf("fsyncs after one more event: got %d, want 2", *syncs)
	}
	if _, err := os.Stat(filepath.Join(dir, "pods_default_b.json")); !os.IsNotExist(err) {
		t.Errorf("object file written before the journal folds: stat got %v, want not exist", err)
	}

	s2 := openStore(t, dir)
	if got := s2.Rev(); got != 11 {
		t.Errorf("rev after reopen: got %d, want 11", got)
	}
	pods := s2.List("pods")
	if len(pods) != 1 || !strings.Contains(string(pods[ref("pods", "default", "b")]), "ub2") {
		t.Errorf("pods after reopen: got %q, want only b with uid ub2", pods)
	}
	if st, err := os.Stat(filepath.Join(dir, journalFile)); err != nil || st.Size() != 0 {
		t.Errorf("journal after reopen: got %v, %v; want folded into the files (empty)", st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pods_default_b.json")); err != nil {
		t.Errorf("object file after the fold: %v", err)
	}
}

func TestStoreFoldsALargeJournal(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	s.foldBytes = 1 // every append passes it
	if err := s.ApplyEvents([]mqtt.Event{podEvent(t, 3, mqtt.Added, "a", "ua"), podEvent(t, 5, mqtt.Added, "b", "ub")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(podEvent(t, 8, mqtt.Deleted, "a", "").Changes, 8); err != nil {
		t.Fatal(err)
	}
	if s.j.size != 0 || len(s.dirty) != 0 {
		t.Errorf("after a fold: journal %d bytes, %d dirty objects; want 0, 0", s.j.size, len(s.dirty))
	}
	rev, err := os.ReadFile(filepath.Join(dir, revFile))
	if err != nil || string(rev) != "8\n" {
		t.Errorf("rev file: got %q, %v; want 8", rev, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "journal pods_default_b.json rev" {
		t.Errorf("files: got %s, want journal pods_default_b.json rev", got)
	}
}

func TestStoreCutsATornJournal(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	if err := s.ApplyEvents([]mqtt.Event{podEvent(t, 4, mqtt.Added, "a", "ua"), podEvent(t, 6, mqtt.Added, "b", "ub")}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	flipped := []byte(lines[1])
	flipped[20] ^= 1 // a bit of the second record's JSON
	cases := []struct {
		name, journal string
		pods          int // records before the damage: a, then b
	}{
		{"torn last line", lines[0] + lines[1][:len(lines[1])/2], 1},
		{"checksum mismatch", lines[0] + string(flipped), 1},
		{"zeros at the end", lines[0] + strings.Repeat("\x00", 512), 1},
		{"torn only line", lines[0][:len(lines[0])/2], 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, journalFile), []byte(c.journal), 0o600); err != nil {
				t.Fatal(err)
			}
			s := openStore(t, d)
			if got := len(s.List("pods")); got != c.pods || s.Rev() != []int64{0, 4}[c.pods] {
				t.Errorf("got %d pods at rev %d, want %d (the records before the damage)", got, s.Rev(), c.pods)
			}
			if err := s.Apply(podEvent(t, 7, mqtt.Added, "c", "uc").Changes, 7); err != nil {
				t.Fatal(err)
			}
			if s2 := openStore(t, d); s2.Rev() != 7 || len(s2.List("pods")) != c.pods+1 {
				t.Errorf("after an append and a reopen: got %d pods at rev %d, want %d at 7", len(s2.List("pods")), s2.Rev(), c.pods+1)
			}
		})
	}
}

// A crash in the middle of a fold leaves some files new, some old, the
// revision file old and the journal whole: replaying it gives the state.
func TestStoreReplaysOverAHalfFold(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	if err := s.ApplyEvents([]mqtt.Event{podEvent(t, 2, mqtt.Added, "a", "ua"), podEvent(t, 3, mqtt.Added, "b", "ub")}); err != nil {
		t.Fatal(err)
	}
	if err := s.fold(); err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyEvents([]mqtt.Event{podEvent(t, 5, mqtt.Modified, "a", "ua2"), podEvent(t, 6, mqtt.Deleted, "b", "")}); err != nil {
		t.Fatal(err)
	}
	if err := s.writeObject(ref("pods", "default", "a"), s.objects[ref("pods", "default", "a")]); err != nil {
		t.Fatal(err) // the fold got this far: a is new, b's file and the rev file are old
	}
	s2 := openStore(t, dir)
	pods := s2.List("pods")
	if s2.Rev() != 6 || len(pods) != 1 || !strings.Contains(string(pods[ref("pods", "default", "a")]), "ua2") {
		t.Errorf("got %q at rev %d, want only a (ua2) at rev 6", pods, s2.Rev())
	}
}

func TestStoreReplaceAfterJournal(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	if err := s.ApplyEvents([]mqtt.Event{podEvent(t, 2, mqtt.Added, "a", "ua"), podEvent(t, 3, mqtt.Added, "b", "ub")}); err != nil {
		t.Fatal(err)
	}
	if err := s.fold(); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(podEvent(t, 5, mqtt.Deleted, "a", "").Changes, 5); err != nil {
		t.Fatal(err) // a's file remains until a fold
	}
	keep := podEvent(t, 0, mqtt.Added, "c", "uc").Changes
	if err := s.Replace(keep, 9); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, dir)
	pods := s2.List("pods")
	if s2.Rev() != 9 || len(pods) != 1 || pods[ref("pods", "default", "c")] == nil {
		t.Errorf("after Replace and reopen: got %d pods at rev %d, want only c at 9", len(pods), s2.Rev())
	}
}

// FuzzJournalRecord: any line either fails the check or is a record that
// encodes back to the same line.
func FuzzJournalRecord(f *testing.F) {
	line, err := encodeRecords([]journalRecord{{Rev: 3, Changes: []mqtt.Change{{Type: mqtt.Deleted,
		ObjectRef: mqtt.ObjectRef{Resource: "pods", Namespace: "default", Name: "a"}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(line)
	f.Add([]byte("00000000 {}\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, ok := decodeRecord(line)
		if !ok {
			return
		}
		again, err := encodeRecords([]journalRecord{rec})
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		if _, ok := decodeRecord(again); !ok {
			t.Fatalf("re-encoded record %q does not decode", again)
		}
	})
}
