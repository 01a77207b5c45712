//go:build kubectl

package apiserver

import (
	"context"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/bootstrap"
	"github.com/bramble-edge/bramble/server/certificates"
	"github.com/bramble-edge/bramble/server/pki"
)

// TestKubectlRBAC drives the RBAC kinds with the real kubectl: the create
// commands, upstream's columns, the default ClusterRoles, auth can-i
// answered by the server's authorizer, api-versions and the local
// APIServices.
func TestKubectlRBAC(t *testing.T) {
	forKubectls(t, testKubectlRBAC)
}

// forKubectls runs test with the machine's kubectl and the oldest and
// newest kubectl bramble supports.
func forKubectls(t *testing.T, test func(t *testing.T, k *kubectlEnv)) {
	for _, bin := range []string{"kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			if _, err := exec.LookPath(bin); err != nil {
				t.Fatalf("%s is required for this test: %v", bin, err)
			}
			k := newKubectlEnv(t)
			k.bin = bin
			test(t, k)
		})
	}
}

func testKubectlRBAC(t *testing.T, k *kubectlEnv) {
	if err := bootstrap.EnsureClusterRoles(context.Background(), k.api.Registry()); err != nil {
		t.Fatal(err)
	}
	wantContains(t, k.ok(t, "", "create", "role", "pod-reader", "--verb=get,list", "--resource=pods"), "role.rbac.authorization.k8s.io/pod-reader created")
	wantContains(t, k.ok(t, "", "create", "clusterrole", "node-reader", "--verb=get", "--resource=nodes"), "clusterrole.rbac.authorization.k8s.io/node-reader created")
	wantContains(t, k.ok(t, "", "create", "rolebinding", "read-pods", "--role=pod-reader", "--user=alice", "--group=ops",
		"--serviceaccount=default:robot"), "rolebinding.rbac.authorization.k8s.io/read-pods created")
	wantContains(t, k.ok(t, "", "create", "clusterrolebinding", "read-nodes", "--clusterrole=node-reader", "--user=bob"),
		"clusterrolebinding.rbac.authorization.k8s.io/read-nodes created")
	wantContains(t, k.ok(t, "", "get", "rolebindings", "-o", "wide"), "ROLE", "USERS", "GROUPS", "SERVICEACCOUNTS",
		"Role/pod-reader", "alice", "ops", "default/robot")
	wantContains(t, k.ok(t, "", "get", "clusterroles"), "CREATED AT", "cluster-admin", "admin", "edit", "view", "node-reader")
	out, err := k.run(t, "", "create", "clusterrolebinding", "bad", "--clusterrole=view", "--serviceaccount=robot")
	if err == nil || !strings.Contains(out, "serviceaccount must be <namespace>:<name>") && !strings.Contains(out, "subjects[0].namespace") {
		t.Fatalf("binding a service account without namespace: got %v\n%s", err, out)
	}
	wantContains(t, k.ok(t, "", "auth", "can-i", "create", "pods"), "yes")
	out, err = k.run(t, "", "--token=viewer-token", "auth", "can-i", "create", "pods")
	if err == nil || !strings.HasPrefix(out, "no") {
		t.Fatalf("viewer can-i create pods: got %v %q, want exit 1 and no", err, out)
	}
	wantContains(t, k.ok(t, "", "--token=viewer-token", "auth", "can-i", "list", "pods"), "yes")
	wantContains(t, k.ok(t, "", "api-versions"), "rbac.authorization.k8s.io/v1", "certificates.k8s.io/v1",
		"admissionregistration.k8s.io/v1", "apiregistration.k8s.io/v1")
	if err := bootstrap.SyncAPIServices(context.Background(), k.api.Registry()); err != nil {
		t.Fatal(err)
	}
	wantContains(t, k.ok(t, "", "get", "apiservices"), "SERVICE", "AVAILABLE", "v1.rbac.authorization.k8s.io", "Local", "True")
}

const csrAlice = `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: alice
spec:
  signerName: example.com/test-signer
  usages: [client auth]
  expirationSeconds: 86400
  username: mallory
  request: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIa01JR01BZ0VBTUNveERqQU1CZ05WQkFNTUJXRnNhV05sTVJnd0ZnWURWUVFLREE5aWNtRnRZbXhsT25acApaWGRsY25Nd1dUQVRCZ2NxaGtqT1BRSUJCZ2dxaGtqT1BRTUJCd05DQUFUOVpERUxtcklkR2EyZVdPRVRZZjdJCmdIak1nVHErRHgyWFJqTmdnWlMvOTBqSVhQaE5SbVk1aWYvUXFBWU5td1h4Mkk2bkNmaDcxZWgwZE1NOFJSbzIKb0FBd0NnWUlLb1pJemowRUF3SURSd0F3UkFJZ0FVc09IOWpjU0wwdnEvUTkxcXdWOTgwcUhrcHpwdk9PZ3FNLwpFYU5nTmpJQ0lIeXNsaml6WjVPbmI0UWhrK2pVemJKdzUxQVJReVdLdHZ1NndPVUEzNVBFCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=
`

// TestKubectlCertificateApprove: a CSR's requestor is who created it,
// kubectl certificate approve and deny work, and an approved
// kube-apiserver-client request is issued (server/certificates
// tests that a request cannot be both).
func TestKubectlCertificateApprove(t *testing.T) {
	forKubectls(t, testKubectlCertificateApprove)
}

func testKubectlCertificateApprove(t *testing.T, k *kubectlEnv) {
	k.api.Registry().Use(&certificates.Admission{})
	ca, err := pki.Load(t.TempDir(), pki.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cache := informer.New(k.store, informer.Config{})
	cache.Informer(api.MustLookup("certificates.k8s.io", "v1", "certificatesigningrequests"))
	ctx, cancel := context.WithCancel(context.Background())
	cache.Start(ctx)
	signer := &certificates.Signer{CA: ca, Client: k.api.Registry().Client(), Cache: cache, Log: slog.New(slog.DiscardHandler)}
	signer.Start(ctx)
	t.Cleanup(func() { cancel(); signer.Stop(); cache.Stop() })
	signed := strings.Replace(csrAlice, "example.com/test-signer", "kubernetes.io/kube-apiserver-client", 1)
	signed = strings.Replace(signed, "name: alice", "name: carol", 1)
	wantContains(t, k.ok(t, signed, "apply", "-f", "-"), "carol created")
	wantContains(t, k.ok(t, "", "certificate", "approve", "carol"), "carol approved")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(k.ok(t, "", "get", "csr", "carol"), "Approved,Issued"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("carol was not issued:\n%s", k.ok(t, "", "get", "csr", "carol"))
		}
	}
	wantContains(t, k.ok(t, csrAlice, "apply", "-f", "-"), "certificatesigningrequest.certificates.k8s.io/alice created")
	wantContains(t, k.ok(t, "", "get", "csr"), "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION",
		"example.com/test-signer", "admin", "24h", "Pending")
	wantContains(t, k.ok(t, "", "certificate", "approve", "alice"), "certificatesigningrequest.certificates.k8s.io/alice approved")
	wantContains(t, k.ok(t, "", "get", "csr", "alice"), "Approved")
	out := k.ok(t, "", "get", "csr", "alice", "-o", "jsonpath={.spec.username} {.status.conditions[0].reason}")
	if out != "admin KubectlApprove" {
		t.Fatalf("got %q, want requestor admin and reason KubectlApprove", out)
	}
	wantContains(t, k.ok(t, strings.Replace(csrAlice, "name: alice", "name: bob", 1), "apply", "-f", "-"), "bob created")
	wantContains(t, k.ok(t, "", "certificate", "deny", "bob"), "bob denied")
	wantContains(t, k.ok(t, "", "get", "csr", "bob"), "Denied")
}
