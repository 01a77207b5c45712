package deployment

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestFenceposts(t *testing.T) {
	for _, tc := range []struct {
		surge, unav  intstr.IntOrString
		replicas     int32
		wantS, wantU int32
		wantErr      bool
	}{
		{intstr.FromString("25%"), intstr.FromString("25%"), 10, 3, 2, false},
		{intstr.FromString("25%"), intstr.FromString("25%"), 1, 1, 0, false},
		{intstr.FromInt32(0), intstr.FromInt32(0), 5, 0, 1, false},
		{intstr.FromString("0%"), intstr.FromString("10%"), 5, 0, 1, false},
		{intstr.FromInt32(2), intstr.FromInt32(9), 3, 2, 3, false},
		{intstr.FromInt32(1), intstr.FromInt32(0), 0, 1, 0, false},
		{intstr.FromString("x%"), intstr.FromInt32(1), 3, 0, 0, true},
	} {
		s, u, err := Fenceposts(&tc.surge, &tc.unav, tc.replicas)
		if (err != nil) != tc.wantErr || s != tc.wantS || u != tc.wantU {
			t.Errorf("Fenceposts(%s, %s, %d): got %d, %d, %v; want %d, %d, error %v",
				tc.surge.String(), tc.unav.String(), tc.replicas, s, u, err, tc.wantS, tc.wantU, tc.wantErr)
		}
	}
}

func TestNewRSReplicas(t *testing.T) {
	for _, tc := range []struct{ replicas, surge, total, current, want int32 }{
		{10, 3, 10, 0, 3},   // surge room only
		{10, 3, 13, 3, 3},   // full: wait
		{10, 3, 11, 5, 7},   // room 2
		{10, 3, 5, 5, 10},   // capped at replicas
		{10, 3, 20, 12, 10}, // above replicas: down to it
		{3, 0, 3, 0, 0},     // no surge: old must shrink first
	} {
		if got := NewRSReplicas(tc.replicas, tc.surge, tc.total, tc.current); got != tc.want {
			t.Errorf("NewRSReplicas(%d, %d, %d, %d): got %d, want %d", tc.replicas, tc.surge, tc.total, tc.current, got, tc.want)
		}
	}
}

func TestScaleDownOldCleansUnhealthyFirst(t *testing.T) {
	// 10 replicas, 2 unavailable: minimum 8 available. The older set has 4
	// pods of which 1 available; the newer old set 6, all available.
	got := ScaleDownOld(10, 2, Counts{Replicas: 3, Available: 3}, []Counts{{4, 1}, {6, 6}})
	// budget 13-8-0=5: 3 unhealthy go from the first; then 10-8=2 available go.
	if fmt.Sprint(got) != "[0 5]" {
		t.Fatalf("ScaleDownOld: got %v, want [0 5]", got)
	}
}

// randomBound is an int or a percentage, as users write them.
func randomBound(r *rand.Rand) intstr.IntOrString {
	if r.IntN(2) == 0 {
		return intstr.FromInt32(r.Int32N(5))
	}
	return intstr.FromString(fmt.Sprintf("%d%%", r.IntN(101)))
}

// rollState is a simulated rollout: the new ReplicaSet and the old ones.
type rollState struct {
	newRS Counts
	old   []Counts
}

func (s *rollState) totals() (total, avail int32) {
	for _, c := range append([]Counts{s.newRS}, s.old...) {
		total += c.Replicas
		avail += min(c.Available, c.Replicas)
	}
	return total, avail
}

func (s *rollState) done(replicas int32) bool {
	for _, o := range s.old {
		if o.Replicas != 0 {
			return false
		}
	}
	return s.newRS.Replicas == replicas && s.newRS.Available == replicas
}

// step applies one PlanRolling decision; a scaled-down set loses its
// unavailable pods first, so it keeps min(available, new size).
func (s *rollState) step(replicas, surge, unav int32) bool {
	newT, oldT := PlanRolling(replicas, surge, unav, s.newRS, s.old)
	moved := newT != s.newRS.Replicas
	s.newRS = Counts{newT, min(s.newRS.Available, newT)}
	for i, n := range oldT {
		moved = moved || n != s.old[i].Replicas
		s.old[i] = Counts{n, min(s.old[i].Available, n)}
	}
	return moved
}

// ripen makes some unavailable pods available, at least one if any.
func (s *rollState) ripen(r *rand.Rand) {
	sets := append([]*Counts{&s.newRS}, ptrs(s.old)...)
	first := true
	for _, c := range sets {
		for c.Available < c.Replicas && (first || r.IntN(2) == 0) {
			c.Available++
			first = false
		}
	}
}

func ptrs(cs []Counts) []*Counts {
	out := make([]*Counts, len(cs))
	for i := range cs {
		out[i] = &cs[i]
	}
	return out
}

// TestPlanRollingProperties drives random rollouts from a settled state:
// the pods asked for never exceed replicas+surge, available pods never
// drop below replicas-unavailable through the controller's own decisions,
// and the rollout always finishes when pods become available.
func TestPlanRollingProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		replicas := r.Int32N(25)
		ms, mu := randomBound(r), randomBound(r)
		surge, unav, err := Fenceposts(&ms, &mu, replicas)
		if err != nil {
			t.Fatalf("Fenceposts(%s, %s): %v", ms.String(), mu.String(), err)
		}
		s := settledState(r, replicas)
		maxTotal, minAvail := replicas+surge, replicas-unav
		for n := 0; !s.done(replicas); n++ {
			if n > int(40*(replicas+1)) {
				t.Fatalf("iter %d: replicas %d surge %d unavailable %d: no finish after %d steps: %+v", iter, replicas, surge, unav, n, s)
			}
			if !s.step(replicas, surge, unav) {
				s.ripen(r)
			}
			total, avail := s.totals()
			if total > maxTotal {
				t.Fatalf("iter %d: pods asked for: got %d, want <= %d (%+v)", iter, total, maxTotal, s)
			}
			if avail < minAvail {
				t.Fatalf("iter %d: available: got %d, want >= %d (%+v)", iter, avail, minAvail, s)
			}
		}
	}
}

// settledState splits replicas available pods over 1-3 old ReplicaSets.
func settledState(r *rand.Rand, replicas int32) *rollState {
	s := &rollState{old: make([]Counts, 1+r.IntN(3))}
	for left := replicas; left > 0; left-- {
		i := r.IntN(len(s.old))
		s.old[i].Replicas++
		s.old[i].Available++
	}
	return s
}

// TestPlanRollingNeverWorsens starts from arbitrary states, bounds or not:
// a step never raises the total above max(total, replicas+surge) and never
// lowers availability below min(available, replicas-unavailable).
func TestPlanRollingNeverWorsens(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 20000 {
		replicas := r.Int32N(20)
		ms, mu := randomBound(r), randomBound(r)
		surge, unav, _ := Fenceposts(&ms, &mu, replicas)
		s := &rollState{newRS: randomCounts(r), old: make([]Counts, r.IntN(4))}
		for i := range s.old {
			s.old[i] = randomCounts(r)
		}
		total0, avail0 := s.totals()
		s.step(replicas, surge, unav)
		total, avail := s.totals()
		if total > max(total0, replicas+surge) {
			t.Fatalf("iter %d: total got %d, want <= max(%d, %d)", iter, total, total0, replicas+surge)
		}
		if avail < min(avail0, replicas-unav) {
			t.Fatalf("iter %d: available got %d, want >= min(%d, %d)", iter, avail, avail0, replicas-unav)
		}
		for _, c := range append([]Counts{s.newRS}, s.old...) {
			if c.Replicas < 0 {
				t.Fatalf("iter %d: negative size %d", iter, c.Replicas)
			}
		}
	}
}

func randomCounts(r *rand.Rand) Counts {
	n := r.Int32N(15)
	return Counts{Replicas: n, Available: r.Int32N(n + 1)}
}

// TestProportionalProperties: sizes sum to the allowed total, never go
// negative, and all move in the direction of the change.
func TestProportionalProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 20000 {
		shares := make([]Share, 1+r.IntN(4))
		var sum int32
		for i := range shares {
			shares[i] = Share{Replicas: 1 + r.Int32N(20), MaxReplicas: r.Int32N(30)}
			sum += shares[i].Replicas
		}
		allowed := r.Int32N(60)
		got := Proportional(allowed, r.Int32N(30), shares)
		var total int32
		for i, n := range got {
			total += n
			if n < 0 || (allowed > sum && n < shares[i].Replicas) || (allowed < sum && n > shares[i].Replicas) {
				t.Fatalf("iter %d: allowed %d from %+v: got %v, want sizes moving toward %d", iter, allowed, shares, got, allowed)
			}
		}
		if total != allowed {
			t.Fatalf("iter %d: allowed %d from %+v: got %v summing to %d", iter, allowed, shares, got, total)
		}
	}
}

func TestProportionalExample(t *testing.T) {
	// 8 old + 5 new under max 13, scaled to 20 (+3 surge = 23).
	got := Proportional(23, 13, []Share{{8, 13}, {5, 13}})
	if fmt.Sprint(got) != "[14 9]" {
		t.Fatalf("Proportional: got %v, want [14 9]", got)
	}
}
