package datastore

import (
	"context"
	"database/sql"
	"fmt"
)

// The file identifies itself with PRAGMA application_id ("brmb") and carries
// its schema version in PRAGMA user_version.
const (
	sqliteApplicationID = 0x62726d62
	sqliteSchemaVersion = 1
)

// The schema:
//
//   - log is the append-only revision log. rev is the global revision (the
//     rowid). create_rev is the revision that started the key's current
//     life; a row with rev == create_rev is a create. prev_rev is the row
//     this one replaced (0 for a create). A delete is a row with deleted=1
//     that carries the key's last value.
//   - current maps every live key to its latest row, so Get and the latest
//     List never scan history.
//   - meta holds the compact revision.
//
// log has no index besides its rowid: every write appends to it, and an
// index on (key, rev) cost a random b-tree leaf (a WAL frame, two pwrite
// calls) per write for its one reader, List at an old revision, which now
// reads current and the log after the revision instead (see listAt).
var sqliteSchema = []string{
	`CREATE TABLE log (
		rev        INTEGER PRIMARY KEY,
		key        TEXT    NOT NULL,
		create_rev INTEGER NOT NULL,
		prev_rev   INTEGER NOT NULL,
		deleted    INTEGER NOT NULL,
		value      BLOB    NOT NULL
	)`,
	`CREATE TABLE current (
		key        TEXT    PRIMARY KEY,
		rev        INTEGER NOT NULL,
		create_rev INTEGER NOT NULL
	) WITHOUT ROWID`,
	`CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID`,
	`INSERT INTO meta (name, value) VALUES ('compact_rev', 0)`,
	fmt.Sprintf(`PRAGMA application_id = %d`, sqliteApplicationID),
	fmt.Sprintf(`PRAGMA user_version = %d`, sqliteSchemaVersion),
}

// initSchema creates the schema in an empty file, or checks that an existing
// file is a bramble datastore this code can read.
func initSchema(ctx context.Context, db *sql.DB) error {
	var objects int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if objects > 0 {
		if err := checkSchema(ctx, db); err != nil {
			return err
		}
		return dropLegacyIndexes(ctx, db)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer tx.Rollback()
	for _, stmt := range sqliteSchema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

// legacyIndexes were in schema version 1 as first written; files made
// before they were dropped still carry them.
//
// Dropping one keeps the file at version 1 on purpose: the schema a
// version-1 reader needs (tables, columns, the meaning of each row) is
// unchanged, and without the index its queries give the same answers, only
// List at an old revision is slower. So an older bramble, after a rollback
// or a restore of a snapshot this one took, still opens and reads the file;
// a version bump would make it refuse to start. Without the index a
// version-1 List at an old revision reads the log once per row it returns
// (minutes on a 30,000-key store, BenchmarkListAtOldRevision30k), so
// snapshots carry the index again (addLegacyIndexes): the way back is to
// save a snapshot with this bramble and restore it with the older one.
var legacyIndexes = []string{"log_key_rev"}

// legacyIndexSQL creates them where they are missing.
const legacyIndexSQL = `CREATE INDEX IF NOT EXISTS log_key_rev ON log (key, rev)`

// dropLegacyIndexes removes the indexes this code no longer reads, so
// writes stop paying for them. A file without them is not written to.
func dropLegacyIndexes(ctx context.Context, db *sql.DB) error {
	for _, name := range legacyIndexes {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?`, name).Scan(&n)
		if err == nil && n > 0 {
			_, err = db.ExecContext(ctx, `DROP INDEX `+name)
		}
		if err != nil {
			return fmt.Errorf("drop index %s: %w", name, err)
		}
	}
	return nil
}

// querier is what both *sql.DB and *sql.Tx offer for reads.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkSchema fails unless db carries bramble's application id and a schema
// version this code understands.
func checkSchema(ctx context.Context, db querier) error {
	var appID, version int64
	if err := db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return fmt.Errorf("read application_id: %w", err)
	}
	if appID != sqliteApplicationID {
		return fmt.Errorf("not a bramble datastore: application_id is %#x, want %#x", appID, sqliteApplicationID)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("read user_version: %w", err)
	}
	if version != sqliteSchemaVersion {
		return fmt.Errorf("datastore schema version is %d, this bramble reads version %d", version, sqliteSchemaVersion)
	}
	return nil
}

// readRevisions returns the latest and the compact revision as seen by q.
// The latest is never below the compact revision: compaction may remove the
// newest row (a delete) but records the revision it compacted to.
func readRevisions(ctx context.Context, q querier) (current, compact int64, err error) {
	err = q.QueryRowContext(ctx, `SELECT
		(SELECT value FROM meta WHERE name = 'compact_rev'),
		(SELECT coalesce(max(rev), 0) FROM log)`).Scan(&compact, &current)
	if err != nil {
		return 0, 0, fmt.Errorf("read revisions: %w", err)
	}
	return max(current, compact), compact, nil
}
