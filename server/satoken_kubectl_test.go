//go:build kubectl

package server

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var tokenKubectls = []string{"/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"}

// kubectl create token with the real kubectl 1.27 and 1.33: the token
// has the duration asked and authenticates; one for another audience
// does not; one bound to a pod stops working when the pod is deleted.
func TestKubectlCreateToken(t *testing.T) {
	dir := t.TempDir()
	s := startAudited(t, dir, AuditConfig{})
	for _, bin := range tokenKubectls {
		run := func(args ...string) string {
			t.Helper()
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "kubeconfig.yaml"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		tok := run("create", "token", "default", "--duration", "15m")
		if c := tokenClaims(t, tok); c.Exp-c.Iat != 900 || c.Sub != "system:serviceaccount:default:default" {
			t.Errorf("%s: claims %+v, want 900 s for system:serviceaccount:default:default", bin, c)
		}
		if code := bearerStatus(t, s, dir, tok); code == http.StatusUnauthorized {
			t.Errorf("%s: the token was refused (401)", bin)
		}
		if code := bearerStatus(t, s, dir, run("create", "token", "default", "--audience", "https://vault.example")); code != http.StatusUnauthorized {
			t.Errorf("%s: a token for another audience got %d, want 401", bin, code)
		}
		run("run", "bound", "--image=busybox", "--restart=Never")
		bound := run("create", "token", "default", "--bound-object-kind", "Pod", "--bound-object-name", "bound")
		if c := tokenClaims(t, bound); c.K8s.Pod.Name != "bound" || c.K8s.Pod.UID == "" {
			t.Errorf("%s: pod-bound token claims %+v", bin, c)
		}
		if code := bearerStatus(t, s, dir, bound); code == http.StatusUnauthorized {
			t.Errorf("%s: the pod-bound token was refused (401)", bin)
		}
		run("delete", "pod", "bound", "--grace-period=0", "--force")
		if code := bearerStatus(t, s, dir, bound); code != http.StatusUnauthorized {
			t.Errorf("%s: the deleted pod's token got %d, want 401", bin, code)
		}
	}
}

type claims struct {
	Sub string `json:"sub"`
	Exp int64  `json:"exp"`
	Iat int64  `json:"iat"`
	K8s struct {
		Pod struct{ Name, UID string } `json:"pod"`
	} `json:"kubernetes.io"`
}

// tokenClaims decodes a JWT's payload without verifying it.
func tokenClaims(t *testing.T, token string) claims {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c claims
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// bearerStatus lists the default namespace's pods with token.
func bearerStatus(t *testing.T, s *Server, dir, token string) int {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(dir, "server", "tls", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1/namespaces/default/pods", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The ServiceAccount controller, seen with kubectl: a deleted default
// ServiceAccount comes back, a new namespace gets kube-root-ca.crt with
// the cluster CA, a legacy token Secret is filled in and its token
// authenticates, and a pod gets the kube-api-access volume unless it
// opts out.
func TestKubectlServiceAccountController(t *testing.T) {
	dir := t.TempDir()
	s := startAudited(t, dir, AuditConfig{})
	kubectl(t, dir, "delete", "serviceaccount", "default")
	waitKubectl(t, dir, "default ServiceAccount recreated", "get", "serviceaccount", "default", "-o", "name")
	kubectl(t, dir, "create", "namespace", "fresh")
	ca, _ := os.ReadFile(filepath.Join(dir, "server", "tls", "ca.crt"))
	got := waitKubectl(t, dir, "kube-root-ca.crt in a new namespace", "get", "configmap", "-n", "fresh", "kube-root-ca.crt", "-o", "jsonpath={.data.ca\\.crt}")
	if !strings.Contains(string(ca), strings.TrimSpace(got)) || strings.TrimSpace(got) == "" {
		t.Errorf("kube-root-ca.crt holds %q, want the cluster CA", got)
	}
	cmd := exec.Command("kubectl", "apply", "-f", "-")
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "kubeconfig.yaml"))
	cmd.Stdin = strings.NewReader(`{"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token",
"metadata":{"name":"legacy","namespace":"default","annotations":{"kubernetes.io/service-account.name":"default"}}}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply legacy secret: %v\n%s", err, out)
	}
	enc := waitKubectl(t, dir, "legacy token Secret filled in", "get", "secret", "legacy", "-o", "jsonpath={.data.token}")
	tok, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		t.Fatal(err)
	}
	if code := bearerStatus(t, s, dir, string(tok)); code == http.StatusUnauthorized {
		t.Errorf("the legacy Secret's token was refused (401)")
	}
	kubectl(t, dir, "run", "mounted", "--image=busybox", "--restart=Never")
	kubectl(t, dir, "run", "bare", "--image=busybox", "--restart=Never", "--overrides", `{"spec":{"automountServiceAccountToken":false}}`)
	if v := kubectl(t, dir, "get", "pod", "mounted", "-o", "jsonpath={.spec.volumes[0].name} {.spec.containers[0].volumeMounts[0].mountPath}"); !strings.HasPrefix(v, "kube-api-access-") ||
		!strings.HasSuffix(v, " /var/run/secrets/kubernetes.io/serviceaccount") {
		t.Errorf("pod volumes and mounts: %q, want kube-api-access-* at /var/run/secrets/kubernetes.io/serviceaccount", v)
	}
	if v := kubectl(t, dir, "get", "pod", "bare", "-o", "jsonpath={.spec.volumes}"); v != "" {
		t.Errorf("automountServiceAccountToken false: volumes %s, want none", v)
	}
}

// waitKubectl runs kubectl args until it succeeds with output (10 s).
func waitKubectl(t *testing.T, dir, what string, args ...string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		cmd := exec.Command("kubectl", args...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "kubeconfig.yaml"))
		if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) != "" {
			return string(out)
		}
	}
	t.Fatalf("%s: not within 10 s", what)
	return ""
}
