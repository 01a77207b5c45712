package auth

import (
	"context"
	"net/http/httptest"
	"testing"
)

// BenchmarkAuthenticateBearerToken: a cached user token (parse, index hit,
// sha256, constant-time compare).
func BenchmarkAuthenticateBearerToken(b *testing.B) {
	l, store, _ := newTestLookup(b)
	s, token, err := NewUserToken("bench", RoleViewer)
	if err != nil {
		b.Fatal(err)
	}
	store.put(s)
	authn := NewAuthenticator(nil, l)
	r := httptest.NewRequest("GET", "/api/v1/pods", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	for b.Loop() {
		if _, err := authn.Authenticate(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthorizeNodePodWatch: the node rule with the most work, a
// fieldSelector parse.
func BenchmarkAuthorizeNodePodWatch(b *testing.B) {
	az := NewNodeAuthorizer(testGraph())
	attrs := sel(res("watch", "", "pods", "", "", ""), "spec.nodeName=pi-1")
	ctx := context.Background()
	for b.Loop() {
		if err := az.Authorize(ctx, node1, attrs); err != nil {
			b.Fatal(err)
		}
	}
}
