package listwatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/datastore"
)

// PageSize is how many keys one List page reads.
const PageSize = 500

// errCompactedMidList: the list's revision was compacted between two of
// its pages; listing again from the start succeeds.
var errCompactedMidList = errors.New("revision compacted between pages")

// List is every key under a prefix at one revision, read page by page as
// a Handler asks for them, so a long list is never all in memory.
type List struct {
	ctx    context.Context
	store  datastore.Store
	prefix string
	rev    int64
	read   bool
}

// Each hands every key under the prefix to fn, in key order, all as of one
// revision (Revision, once Each returned nil). Call it once.
func (l *List) Each(fn func(kv *datastore.KeyValue)) error {
	if l.read {
		return errors.New("listwatch: List.Each called twice")
	}
	l.read = true
	rev, err := ListAt(l.ctx, l.store, l.prefix, 0, fn)
	if err != nil {
		return fmt.Errorf("list %s: %w", l.prefix, err)
	}
	l.rev = rev
	return nil
}

// Revision is the revision Each listed at.
func (l *List) Revision() int64 { return l.rev }

// ListAt hands every key under prefix as of rev (0: the latest) to fn, page
// by page, and returns the revision read. A revision compacted between two
// pages gives an error wrapping datastore.ErrCompacted.
func ListAt(ctx context.Context, store datastore.Store, prefix string, rev int64, fn func(kv *datastore.KeyValue)) (int64, error) {
	opts := datastore.ListOptions{Revision: rev, Limit: PageSize}
	for {
		page, err := store.List(ctx, prefix, opts)
		if errors.Is(err, datastore.ErrCompacted) && opts.Continue != "" {
			return 0, fmt.Errorf("%w: %w", errCompactedMidList, err)
		}
		if err != nil {
			return 0, err
		}
		rev = cmp.Or(rev, page.Revision)
		for _, kv := range page.Items {
			fn(kv)
		}
		if page.Continue == "" {
			return rev, nil
		}
		opts = datastore.ListOptions{Limit: PageSize, Continue: page.Continue}
	}
}
