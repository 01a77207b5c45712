package datastore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// SQLiteConfig tunes a SQLite store. Zero values get defaults.
type SQLiteConfig struct {
	// Logger receives background errors (compaction). Default: slog.Default().
	Logger *slog.Logger
	// CommitHook, when set, runs inside every write transaction just before
	// COMMIT. Tests and benchmarks use it to simulate slow storage.
	CommitHook func()
	// CompactInterval is how often the background compactor runs. Default
	// 5m; a negative value turns the background compactor off.
	CompactInterval time.Duration
	// CompactRetain is how many revisions the background compactor keeps
	// readable. Default 1000.
	CompactRetain int64
	// MaxBatch caps the writes applied in one group commit. Default 256.
	MaxBatch int
	// WatchBuffer is how many commits a watcher may fall behind before it
	// is cut off. Default 256.
	WatchBuffer int
	// SpaceGrace is how long Health stays failing after a write failed for
	// lack of disk space, even when a later write succeeds. Default 10s.
	SpaceGrace time.Duration

	// synchronous overrides PRAGMA synchronous; tests only ("" = FULL).
	synchronous string
}

func (c *SQLiteConfig) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.CompactInterval == 0 {
		c.CompactInterval = 5 * time.Minute
	}
	if c.CompactRetain <= 0 {
		c.CompactRetain = 1000
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 256
	}
	if c.WatchBuffer <= 0 {
		c.WatchBuffer = 256
	}
	if c.SpaceGrace <= 0 {
		c.SpaceGrace = 10 * time.Second
	}
	if c.synchronous == "" {
		c.synchronous = "FULL"
	}
}

// DefaultSQLitePath is where the server keeps its database under dataDir.
func DefaultSQLitePath(dataDir string) string {
	return filepath.Join(dataDir, "server", "db", "state.db")
}

// SQLite is the default Store: one SQLite file in WAL mode, every commit
// fsynced, writes group-committed by a single writer goroutine.
type SQLite struct {
	path string
	cfg  SQLiteConfig
	log  *slog.Logger

	wdb   *sql.DB // one connection, owned by the writer goroutine
	rdb   *sql.DB // pool for reads
	reads *readStmts
	bc    *broadcaster

	reqs       chan *writeReq
	stop       chan struct{}  // closed by Close
	writerDone chan struct{}  // closed when the writer goroutine exits
	wg         sync.WaitGroup // writer, compactor and watch goroutines
	lifeMu     sync.RWMutex   // orders spawn against Close

	space      spaceState   // whether writes fail for lack of disk space
	rev        atomic.Int64 // latest committed revision
	compactRev atomic.Int64
	closed     atomic.Bool
	closeOnce  sync.Once
}

var _ Store = (*SQLite)(nil)

// OpenSQLite opens (creating if needed) the store at path and starts its
// writer and background compactor. Close stops them.
func OpenSQLite(ctx context.Context, path string, cfg SQLiteConfig) (*SQLite, error) {
	cfg.setDefaults()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open datastore %s: %w", path, err)
	}
	if err := prepareDBFile(abs); err != nil {
		return nil, fmt.Errorf("open datastore %s: %w", abs, err)
	}
	removeStaleSnapshotTemps(filepath.Dir(abs), cfg.Logger)
	s := &SQLite{path: abs, cfg: cfg, log: cfg.Logger,
		bc:   newBroadcaster(cfg.WatchBuffer),
		reqs: make(chan *writeReq, 4*cfg.MaxBatch),
		stop: make(chan struct{}), writerDone: make(chan struct{})}
	if err := s.open(ctx); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("open datastore %s: %w", abs, err)
	}
	return s, nil
}

func (s *SQLite) open(ctx context.Context) error {
	var err error
	s.wdb, err = openDB(s.path, url.Values{"_journal_mode": {"WAL"},
		"_synchronous": {s.cfg.synchronous}, "_busy_timeout": {"10000"}})
	if err != nil {
		return err
	}
	s.wdb.SetMaxOpenConns(1)
	if err := initSchema(ctx, s.wdb); err != nil {
		return err
	}
	s.rdb, err = openDB(s.path, url.Values{"_busy_timeout": {"10000"}, "_query_only": {"true"}})
	if err != nil {
		return err
	}
	s.rdb.SetMaxOpenConns(4)
	if s.reads, err = prepareReads(ctx, s.rdb); err != nil {
		return err
	}
	w, err := newWriter(ctx, s)
	if err != nil {
		return err
	}
	s.spawn(w.run)
	if s.cfg.CompactInterval > 0 {
		s.spawn(s.compactLoop)
	}
	return nil
}

// spawn runs fn in a goroutine Close waits for; false once closed.
func (s *SQLite) spawn(fn func()) bool {
	s.lifeMu.RLock()
	defer s.lifeMu.RUnlock()
	if s.closed.Load() {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
	return true
}

// prepareDBFile creates the parent folders (0700) and an empty 0600 file so
// SQLite (and its -wal/-shm files, which copy the mode) never start wider.
func prepareDBFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// openDB opens path with go-sqlite3 URI parameters.
func openDB(path string, params url.Values) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + params.Encode()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// CurrentRevision is the latest committed revision.
func (s *SQLite) CurrentRevision(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return s.rev.Load(), nil
}

// CompactRevision is the oldest revision still readable (0 when nothing was
// compacted).
func (s *SQLite) CompactRevision(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return s.compactRev.Load(), nil
}

// Close stops the writer, the compactor and all watches, then closes the
// database. Writes waiting in the queue fail with ErrClosed.
func (s *SQLite) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.lifeMu.Lock()
		s.closed.Store(true)
		close(s.stop)
		s.lifeMu.Unlock()
		s.wg.Wait()
		s.bc.close()
		err = s.closeDBs()
	})
	return err
}

func (s *SQLite) closeDBs() error {
	var first error
	if s.reads != nil {
		s.reads.close()
	}
	for _, db := range []*sql.DB{s.rdb, s.wdb} {
		if db == nil {
			continue
		}
		if err := db.Close(); err != nil && first == nil {
			first = fmt.Errorf("close datastore %s: %w", s.path, err)
		}
	}
	return first
}
