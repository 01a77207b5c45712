package replicaset

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestDiffProperties checks the replica arithmetic over random inputs:
// scaling up never passes desired, scaling down never goes below it, a
// sync never does more than burst, and it moves all the way when it may.
func TestDiffProperties(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for range 20000 {
		active, desired, burst := r.IntN(1200), r.IntN(1200), 1+r.IntN(600)
		create, remove := Diff(active, desired, burst)
		fail := func(what string) {
			t.Fatalf("seed %d: Diff(%d, %d, %d) = (%d, %d): %s", seed, active, desired, burst, create, remove, what)
		}
		switch {
		case create < 0 || remove < 0 || (create > 0 && remove > 0):
			fail("want non-negative, at most one non-zero")
		case active+create > desired && create > 0:
			fail("creates past desired")
		case active-remove < desired && remove > 0:
			fail("deletes below desired")
		case create > burst || remove > burst:
			fail("more than burst")
		case active+create-remove != desired && create != burst && remove != burst:
			fail("stops short of desired without reaching burst")
		}
	}
}

func TestDiffClampsBadInput(t *testing.T) {
	for _, tc := range []struct{ active, desired, burst, create, remove int }{
		{-3, 2, 10, 2, 0},
		{4, -1, 10, 0, 4},
		{0, 5, 0, 1, 0},
		{7, 7, 1, 0, 0},
	} {
		c, r := Diff(tc.active, tc.desired, tc.burst)
		if c != tc.create || r != tc.remove {
			t.Errorf("Diff(%d, %d, %d) = (%d, %d), want (%d, %d)", tc.active, tc.desired, tc.burst, c, r, tc.create, tc.remove)
		}
	}
}

// TestSlowStartProperties runs SlowStart with calls that fail at random:
// it never calls more than count times, reports exactly the calls that
// succeeded, stops after the first batch with a failure, and so calls at
// most 2*successes+initial times; with no failure it calls count times.
func TestSlowStartProperties(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 2))
	errBoom := errors.New("boom")
	for range 2000 {
		count, initial := r.IntN(70), 1+r.IntN(4)
		failRate := []float64{0, 0.02, 0.2, 1}[r.IntN(4)]
		calls, okCalls, done, err := slowStartTrial(r, count, initial, failRate, errBoom)
		bad := func(what string) {
			t.Fatalf("seed %d: SlowStart(%d, %d) failRate %v: calls %d ok %d done %d err %v: %s",
				seed, count, initial, failRate, calls, okCalls, done, err, what)
		}
		switch {
		case calls > count:
			bad("more calls than count")
		case done != okCalls:
			bad("reported successes differ from real ones")
		case err == nil && (calls != count || done != count):
			bad("no error but not every call made and successful")
		case err != nil && !errors.Is(err, errBoom):
			bad("error is not the call's")
		case calls > 2*done+initial:
			bad("kept going after a failing batch")
		case !slices.Contains(prefixSums(BatchSizes(count, initial)), calls):
			bad("stopped inside a batch")
		}
	}
}

// slowStartTrial runs SlowStart with calls failing at failRate and counts
// the calls made and the ones that succeeded.
func slowStartTrial(r *rand.Rand, count, initial int, failRate float64, errBoom error) (calls, okCalls, done int, err error) {
	var mu sync.Mutex
	done, err = SlowStart(context.Background(), count, initial, func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if r.Float64() < failRate {
			return errBoom
		}
		okCalls++
		return nil
	})
	return calls, okCalls, done, err
}

func TestBatchSizes(t *testing.T) {
	for _, tc := range []struct {
		count, initial int
		want           []int
	}{
		{0, 1, nil},
		{1, 1, []int{1}},
		{12, 1, []int{1, 2, 4, 5}},
		{15, 1, []int{1, 2, 4, 8}},
		{10, 3, []int{3, 6, 1}},
		{5, 0, []int{1, 2, 2}},
	} {
		if got := BatchSizes(tc.count, tc.initial); !slices.Equal(got, tc.want) {
			t.Errorf("BatchSizes(%d, %d) = %v, want %v", tc.count, tc.initial, got, tc.want)
		}
	}
}

// prefixSums are the call counts after each whole batch.
func prefixSums(sizes []int) []int {
	out, sum := []int{0}, 0
	for _, s := range sizes {
		sum += s
		out = append(out, sum)
	}
	return out
}
