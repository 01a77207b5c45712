package datastore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
)

// A snapshot restored over a datastore goes back in time, but the revisions
// issued since the snapshot was taken are still held by nodes and by API
// clients (informers, kubectl watches). Were the restored store to issue
// them again for different changes, a node holding revision R would take
// the new R as something it already has and skip it, and a watch resumed
// from R would silently miss the changes in between.
//
// So a restore over an existing datastore moves the revision counter past
// every revision the replaced datastore ever issued (it is the high-water
// mark: revisions are issued only by it) and marks everything before the
// new revision compacted, as etcdutl's `snapshot restore --bump-revision
// --mark-compacted` does. A watch or a node catch-up from an old revision
// then gets "compacted" and lists again; a revision from the discarded
// future is older than the new counter, so it is never mistaken for one the
// restored store issues. A restore into an empty data dir keeps the
// snapshot's revisions: there is nothing to be past (nodes that are ahead
// of it are told to relist by the publisher).

// unknownBump is how far the counter moves when the replaced datastore
// cannot be read (it is the reason for the restore): further than any
// edge cluster issues revisions, as etcd's documentation suggests.
const unknownBump = 1_000_000_000

// issuedRevision reads the latest revision of the datastore at dbPath:
// found false when there is none, an error when it is there but unreadable.
func issuedRevision(ctx context.Context, dbPath string) (rev int64, found bool, err error) {
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	db, err := openDB(dbPath, url.Values{"mode": {"ro"}})
	if err != nil {
		return 0, true, err
	}
	defer db.Close()
	if err := checkSchema(ctx, db); err != nil {
		return 0, true, err
	}
	rev, _, err = readRevisions(ctx, db)
	return rev, true, err
}

// bumpPlan says where the restored counter must start: past is the
// replaced datastore's revision (0: none), unreadable that it was there
// but could not be read.
func bumpPlan(ctx context.Context, dbPath string) (past int64, bump bool) {
	rev, found, err := issuedRevision(ctx, dbPath)
	switch {
	case !found:
		return 0, false
	case err != nil:
		return unknownBump, true
	}
	return rev, true
}

// bumpRevision moves the datastore at path (the verified copy about to be
// renamed into place) to revision past+1 when that is ahead of its own, or
// to its own revision plus unknownBump when past is unknownBump, drops its
// history and marks it compacted up to there. It returns the new revision.
func bumpRevision(ctx context.Context, path string, past int64) (int64, error) {
	db, err := openDB(path, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	cur, _, err := readRevisions(ctx, db)
	if err != nil {
		return 0, err
	}
	target := max(cur, past) + 1
	if past == unknownBump {
		target = cur + unknownBump
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// Every row that is not a live key's latest is superseded history or a
	// delete: gone once the store is compacted to target.
	if _, err := tx.ExecContext(ctx, `DELETE FROM log WHERE rev NOT IN (SELECT rev FROM current)`); err != nil {
		return 0, fmt.Errorf("drop history: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ?1 WHERE name = 'compact_rev'`, target); err != nil {
		return 0, fmt.Errorf("mark compacted: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return target, err
}
