package api

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// BenchmarkQuantityProblem is the admission check of the quantities a pod
// template carries, as each pod a ReplicaSet creates has them.
func BenchmarkQuantityProblem(b *testing.B) {
	var qs []resource.Quantity
	for _, s := range []string{"10m", "16Mi", "100m", "128Mi", "1", "1Gi"} {
		qs = append(qs, resource.MustParse(s))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			if bad, _, _ := quantityProblem(q); bad {
				b.Fatal(q.String())
			}
		}
	}
}

// exponentPattern is the regular expression exponentSuffix stands for.
var exponentPattern = regexp.MustCompile(`[eE]([+-]?[0-9]+)$`)

// checkExponentSuffix fails when exponentSuffix and the regular expression
// disagree about s.
func checkExponentSuffix(t testing.TB, s string) {
	t.Helper()
	got, ok := exponentSuffix(s)
	m := exponentPattern.FindStringSubmatch(s)
	if ok != (m != nil) || (ok && got != m[1]) {
		t.Errorf("exponentSuffix(%q) = %q, %v; the pattern captures %q", s, got, ok, m)
	}
}

func TestExponentSuffixIsThePattern(t *testing.T) {
	for _, s := range []string{"", "1", "e", "e1", "1e", "1e3", "1E-3", "1e+30", "1e+-3", "1e-+3",
		"1ee5", "1e5e6", "2e3x", "+5", "-5", "1e-", "1e+", "10m", "16Mi", "1E", "8Ei", "e-0", "1e\n5"} {
		checkExponentSuffix(t, s)
	}
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 3))
	const alphabet = "0123456789eE+-.mKi x"
	for range 100000 {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkExponentSuffix(t, string(b))
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

func FuzzExponentSuffix(f *testing.F) {
	for _, s := range []string{"1e3", "1E-3", "1e+-3", "10m", "1e5e6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkExponentSuffix(t, s) })
}
