package datastore

// WithSynchronous returns cfg with PRAGMA synchronous set to mode. Only the
// fsync test uses it, to prove its check fails when commits skip fsync.
func WithSynchronous(cfg SQLiteConfig, mode string) SQLiteConfig {
	cfg.synchronous = mode
	return cfg
}
