package satoken

import (
	"context"
	"testing"
)

// BenchmarkAuthenticateToken is the cost the API pays per request that
// carries a pod-bound ServiceAccount token: RS256 verification with a
// cached key, claim checks and the lookups of the account and the pod
// (here from memory; the server reads them through the registry).
func BenchmarkAuthenticateToken(b *testing.B) {
	f := newFixture(b)
	tk := f.tokens(b, b.TempDir())
	token := issue(b, tk, true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tk.AuthenticateToken(ctx, token); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIssueToken is the cost of one TokenRequest (RS256 signing).
func BenchmarkIssueToken(b *testing.B) {
	f := newFixture(b)
	tk := f.tokens(b, b.TempDir())
	b.ReportAllocs()
	for b.Loop() {
		issue(b, tk, true)
	}
}
