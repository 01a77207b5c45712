package encryption

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bramble-edge/bramble/server/auth"
)

// fakeAuth authenticates everyone as user and lets allow decide; it records
// what it was asked.
type fakeAuth struct {
	allow bool
	asked auth.Attributes
}

func (f *fakeAuth) Authenticate(*http.Request) (*auth.User, error) {
	return &auth.User{Name: "u"}, nil
}

func (f *fakeAuth) Authorize(_ context.Context, _ *auth.User, attrs auth.Attributes) error {
	f.asked = attrs
	if !f.allow {
		return auth.ErrForbidden
	}
	return nil
}

func TestHandlerAuthorizesEveryOperation(t *testing.T) {
	s, _ := newStore(t)
	before := s.Keys().Current()
	for _, tc := range []struct {
		method, op, verb string
		allow            bool
		code             int
	}{
		{http.MethodPost, "rotate-keys", "post", false, http.StatusForbidden},
		{http.MethodGet, "status", "get", false, http.StatusForbidden},
		{http.MethodGet, "status", "get", true, http.StatusOK},
		{http.MethodGet, "reencrypt", "", true, http.StatusMethodNotAllowed},
		{http.MethodPost, "nothing", "", true, http.StatusNotFound},
	} {
		f := &fakeAuth{allow: tc.allow}
		rec := httptest.NewRecorder()
		Handler(NewAdmin(s), f, f).ServeHTTP(rec, httptest.NewRequest(tc.method, PathPrefix+tc.op, nil))
		if rec.Code != tc.code || f.asked.Verb != tc.verb || (tc.verb != "" && f.asked.NonResourcePath != PathPrefix+tc.op) {
			t.Errorf("%s %s: got %d asking %+v, want %d asking verb %q on the path", tc.method, tc.op, rec.Code, f.asked, tc.code, tc.verb)
		}
	}
	if s.Keys().Current() != before {
		t.Fatal("a refused rotate-keys rotated the keys")
	}
}
