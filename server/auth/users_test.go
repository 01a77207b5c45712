package auth

import (
	"regexp"
	"strings"
	"testing"

	nodejoin "github.com/bramble-edge/bramble/join"

	corev1 "k8s.io/api/core/v1"
)

var tokenShape = regexp.MustCompile(`^[a-z0-9]{6}\.[a-z0-9]{32}$`)

func TestNewUserToken(t *testing.T) {
	s, token, err := NewUserToken("alice", RoleViewer)
	if err != nil {
		t.Fatalf("NewUserToken: %v", err)
	}
	if !tokenShape.MatchString(token) {
		t.Fatalf("token: got %q, want <6 alnum>.<32 alnum>", token)
	}
	id, secret, _ := strings.Cut(token, ".")
	if s.Name != "bramble-user-alice" || s.Namespace != "kube-system" || s.Type != "bramble.io/user-token" {
		t.Errorf("secret: got %s/%s type %q, want kube-system/bramble-user-alice type bramble.io/user-token", s.Namespace, s.Name, s.Type)
	}
	if got := s.Labels["bramble.io/user"]; got != "alice" {
		t.Errorf("label bramble.io/user: got %q, want alice", got)
	}
	want := map[string]string{"id": id, "name": "alice", "role": "viewer", "secret-hash": HashTokenSecret(secret)}
	for k, v := range want {
		if got := string(s.Data[k]); got != v {
			t.Errorf("data[%s]: got %q, want %q", k, got, v)
		}
	}
	for k, v := range s.Data {
		if strings.Contains(string(v), secret) {
			t.Errorf("data[%s] holds the plain secret", k)
		}
	}
	stored, err := StoredTokenFromSecret(s)
	if err != nil {
		t.Fatalf("StoredTokenFromSecret: %v", err)
	}
	if *stored != (StoredToken{ID: id, Name: "alice", Role: "viewer", SecretHash: HashTokenSecret(secret)}) {
		t.Errorf("stored token: got %+v", stored)
	}
	_, again, _ := NewUserToken("alice", RoleViewer)
	if again == token {
		t.Error("two tokens are equal, want fresh randomness")
	}
}

func TestNewUserTokenValidation(t *testing.T) {
	tests := []struct{ name, role, wantErr string }{
		{"", RoleAdmin, "user name: must not be empty"},
		{"Alice", RoleAdmin, `user name "Alice"`},
		{"a_b", RoleAdmin, `user name "a_b"`},
		{strings.Repeat("a", 64), RoleAdmin, "must be no more than 63"},
		{"alice", "node", `role "node": must be "admin" or "viewer"`},
		{"alice", "", `role "": must be`},
	}
	for _, tc := range tests {
		_, _, err := NewUserToken(tc.name, tc.role)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("NewUserToken(%q, %q): got %v, want an error containing %q", tc.name, tc.role, err, tc.wantErr)
		}
	}
}

func TestParseUserToken(t *testing.T) {
	good := "abc123." + strings.Repeat("x9", 16)
	id, secret, err := ParseUserToken(good)
	if err != nil || id != "abc123" || secret != strings.Repeat("x9", 16) {
		t.Fatalf("ParseUserToken(%q): got %q, %q, %v", good, id, secret, err)
	}
	bad := map[string]string{
		"":                                  "found no '.'",
		"abc123":                            "found no '.'",
		"abc12." + strings.Repeat("a", 32):  "id: got 5 characters, want 6",
		"abc123." + strings.Repeat("a", 31): "secret: got 31 characters, want 32",
		"ABC123." + strings.Repeat("a", 32): "id: character 1 is not",
		"abc123." + strings.Repeat("a", 31) + "-": "secret: character 32 is not",
		"abc123." + strings.Repeat("a", 31) + ".": "secret: character 32 is not",
		" abc12." + strings.Repeat("a", 32):       "id: character 1 is not",
	}
	for in, want := range bad {
		if _, _, err := ParseUserToken(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseUserToken(%q): got %v, want an error containing %q", in, err, want)
		}
	}
}

func FuzzParseUserToken(f *testing.F) {
	_, token, err := NewUserToken("seed", RoleAdmin)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{token, "", ".", "abc123.", ".abc", "abc123.\x00", "K10abc::abc123.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, secret, err := ParseUserToken(s)
		if err != nil {
			return
		}
		if !tokenShape.MatchString(s) || id+"."+secret != s {
			t.Fatalf("accepted %q as id %q secret %q", s, id, secret)
		}
	})
}

func TestStoredTokenFromSecretRejectsMalformed(t *testing.T) {
	base, _, err := NewUserToken("bob", RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]func(*corev1.Secret){
		"type":   func(s *corev1.Secret) { s.Type = corev1.SecretTypeOpaque },
		"id":     func(s *corev1.Secret) { s.Data["id"] = []byte("x") },
		"name":   func(s *corev1.Secret) { s.Data["name"] = []byte("B B") },
		"role":   func(s *corev1.Secret) { s.Data["role"] = []byte("root") },
		"hash":   func(s *corev1.Secret) { s.Data["secret-hash"] = []byte("zz") },
		"no key": func(s *corev1.Secret) { delete(s.Data, "secret-hash") },
	}
	for name, mutate := range tests {
		s := base.DeepCopy()
		mutate(s)
		if _, err := StoredTokenFromSecret(s); err == nil {
			t.Errorf("%s: got nil error, want refusal", name)
		}
	}
}

func TestRandomTokenUsesWholeAlphabet(t *testing.T) {
	seen := make(map[rune]bool)
	for range 50 {
		s, err := nodejoin.RandomString(32)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s {
			if !strings.ContainsRune(tokenAlphabet, r) {
				t.Fatalf("character %q outside the alphabet", r)
			}
			seen[r] = true
		}
	}
	// 1,600 uniform draws from 36 symbols miss one with odds below 1e-17.
	if len(seen) != len(tokenAlphabet) {
		t.Errorf("distinct characters: got %d, want %d", len(seen), len(tokenAlphabet))
	}
}
