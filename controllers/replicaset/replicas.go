package replicaset

import (
	"context"
	"fmt"
)

// DefaultBurst caps how many pods one sync creates or deletes, as kube's
// burstReplicas does: a large scale happens over several syncs, each
// waiting for the cache to observe the previous one's writes.
const DefaultBurst = 500

// Diff is the replica arithmetic of one sync: how many pods to create or
// delete so that active pods become desired, at most burst of either.
// At most one of the results is non-zero. Negative inputs count as zero;
// a burst below 1 counts as 1.
func Diff(active, desired, burst int) (create, remove int) {
	active, desired, burst = max(active, 0), max(desired, 0), max(burst, 1)
	switch {
	case active < desired:
		return min(desired-active, burst), 0
	case active > desired:
		return 0, min(active-desired, burst)
	}
	return 0, 0
}

// SlowStart calls fn count times in batches that double in size, starting
// at initial (1, 2, 4, ... for initial 1); the calls of one batch run at
// once, DefaultWorkers at most. The first batch with a failure is the
// last: it returns how many calls succeeded and the batch's first error.
// So a create that fails every time is tried about as often as it
// succeeded, not count times.
func SlowStart(ctx context.Context, count, initial int, fn func(ctx context.Context) error) (int, error) {
	done := 0
	for _, size := range BatchSizes(count, initial) {
		ok, err := runBatch(ctx, size, fn)
		done += ok
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// BatchSizes splits count into slow-start batches: initial (at least 1),
// then each twice the one before, the last cut to what is left.
func BatchSizes(count, initial int) []int {
	var out []int
	for size, left := max(initial, 1), count; left > 0; size *= 2 {
		out = append(out, min(size, left))
		left -= size
	}
	return out
}

// runBatch runs n calls of fn on the pool and waits for them.
func runBatch(ctx context.Context, n int, fn func(ctx context.Context) error) (int, error) {
	errs := shared.parallel(n, func(int) error { return fn(ctx) })
	switch len(errs) {
	case 0:
		return n, nil
	case 1:
		return n - 1, errs[0]
	}
	return n - len(errs), fmt.Errorf("%w (and %d more failures)", errs[0], len(errs)-1)
}
