package datastore_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// The durability tests re-execute this test binary as a child process:
// TestMain sees childEnv and runs the named child instead of the tests.
const childEnv = "BRAMBLE_DATASTORE_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		if err := runChild(mode); err != nil {
			fmt.Fprintf(os.Stderr, "child %s: %v\n", mode, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(mode string) error {
	path := os.Getenv("BRAMBLE_DB")
	switch mode {
	case "crash-writer":
		return crashWriter(path, os.Getenv("BRAMBLE_ROUND"))
	case "fsync-writer":
		n, err := strconv.Atoi(os.Getenv("BRAMBLE_WRITES"))
		if err != nil {
			return fmt.Errorf("BRAMBLE_WRITES: %w", err)
		}
		return fsyncWriter(path, n, os.Getenv("BRAMBLE_SYNC"))
	case "snapshot-save":
		return datastore.SnapshotSave(context.Background(), path, os.Getenv("BRAMBLE_OUT"))
	case "hold-open":
		return holdOpen(path)
	}
	return fmt.Errorf("unknown child mode %q", mode)
}

// crashValue is the value of a key's version-th write: 64 to ~1.6 KiB of
// bytes derived from both, so the parent can recompute and compare it.
func crashValue(key string, version int) []byte {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s#%d", key, version)
	n := 64 + int(h.Sum32()%1500)
	return []byte(strings.Repeat(fmt.Sprintf("%s#%d;", key, version), n/len(key)+1)[:n])
}

// crashWriter runs concurrent writers until it is killed, printing
// "key version rev" for each write only after the Store call returned.
func crashWriter(path, round string) error {
	st, err := datastore.OpenSQLite(context.Background(), path, datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		return err
	}
	var out sync.Mutex
	ack := func(key string, version int, rev int64) {
		line := fmt.Sprintf("%s %d %d\n", key, version, rev)
		out.Lock()
		defer out.Unlock()
		os.Stdout.WriteString(line) // one write(2), atomic on a pipe
	}
	errs := make(chan error, 16)
	for w := range 16 {
		go func() { errs <- crashWriterLoop(st, round, w, ack) }()
	}
	return <-errs
}

func crashWriterLoop(st datastore.Store, round string, w int, ack func(string, int, int64)) error {
	ctx := context.Background()
	for i := 0; ; i++ {
		key := fmt.Sprintf("/crash/%s/w%02d/k%05d", round, w, i)
		rev, err := st.Create(ctx, key, crashValue(key, 0))
		if err != nil {
			return err
		}
		ack(key, 0, rev)
		for v := 1; v <= i%3; v++ {
			if rev, err = st.Update(ctx, key, crashValue(key, v), rev); err != nil {
				return err
			}
			ack(key, v, rev)
		}
	}
}

// fsyncWriter does n sequential writes and writes "ack <rev>" to fd 3
// after each returned, so a trace shows where every acknowledgement falls.
func fsyncWriter(path string, n int, sync string) error {
	cfg := datastore.SQLiteConfig{CompactInterval: -1}
	if sync != "" {
		cfg = datastore.WithSynchronous(cfg, sync)
	}
	st, err := datastore.OpenSQLite(context.Background(), path, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	acks := os.NewFile(3, "acks")
	for i := range n {
		rev, err := st.Create(context.Background(), fmt.Sprintf("/fsync/%04d", i), []byte("value"))
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(acks, "ack %d\n", rev); err != nil {
			return fmt.Errorf("write ack: %w", err)
		}
	}
	return nil
}

// holdOpen keeps a store open (as a running server would) until killed.
func holdOpen(path string) error {
	st, err := datastore.OpenSQLite(context.Background(), path, datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Create(context.Background(), "/held", nil); err != nil {
		return err
	}
	fmt.Println("ready")
	time.Sleep(time.Hour)
	return nil
}
