package auth

import (
	"strings"
	"testing"
)

// TestUserClusterRoleRoundTrip: a user bound to any ClusterRole keeps its
// name through the Secret; admin and viewer Secrets keep the old shape.
func TestUserClusterRoleRoundTrip(t *testing.T) {
	for role, stored := range map[string]string{RoleAdmin: "admin", RoleViewer: "viewer", "edit": "clusterrole", "system:monitoring": "clusterrole"} {
		s, _, err := NewUserToken("alice", role)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if got := string(s.Data["role"]); got != stored {
			t.Errorf("%s: stored role %q, want %q", role, got, stored)
		}
		back, err := StoredTokenFromSecret(s)
		if err != nil || back.Role != role {
			t.Errorf("%s: read back %+v, %v", role, back, err)
		}
	}
	s, _, _ := NewUserToken("alice", "edit")
	s.Data["clusterrole"] = []byte("admin")
	if _, err := StoredTokenFromSecret(s); err == nil || !strings.Contains(err.Error(), "stored as a ClusterRole name") {
		t.Errorf("clusterrole admin: got %v, want a refusal", err)
	}
	if got := UserClusterRole(RoleViewer) + " " + UserClusterRole(RoleAdmin) + " " + UserClusterRole("edit"); got != "view cluster-admin edit" {
		t.Errorf("UserClusterRole: got %q", got)
	}
}
