package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

const inclusterImage = "docker.io/library/incluster:e2e"

// saTokenLife is --service-account-max-token-expiration in this test: the
// pod's 3607 s token is cut to it, so the agent renews it every 16 s and
// the first one is refused 30 s (life plus the verifier's 10 s leeway)
// after it was issued.
const saTokenLife = 20 * time.Second

// TestServiceAccountInClusterClient: a real client-go program, configured
// by rest.InClusterConfig from what bramble mounts and sets in every pod,
// runs as ServiceAccount reader, bound to a Role that allows listing pods
// in its namespace. It lists them; it is refused (403) cluster-wide and
// for Secrets; it keeps working once its first token is dead, on the
// tokens the agent renewed. After the pod is deleted its token is refused.
func TestServiceAccountInClusterClient(t *testing.T) {
	cluster.NeedNetworkTools(t)
	br := cluster.NewBridge(t)
	na := br.AddNamespace()
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerOn(t, br.Addr.String(), "--service-account-max-token-expiration", saTokenLife.String())
	const nsA = "bramble-e2e-satoken"
	a := cluster.StartAgentIn(t, na, s, d, nsA, "--token", cluster.JoinToken(t, s), "--node-name", "na")
	a.WaitReady(t, s, "na")
	cluster.ImportInCluster(t, a.DataDir, d, nsA, inclusterImage)
	s.MustKubectl("create", "namespace", "sat")
	apply(t, s, fmt.Sprintf(inclusterManifest, inclusterImage))
	lines := waitInClusterRefresh(t, s)
	for _, what := range []string{"pods-all", "secrets-ns"} {
		if !hasResult(lines, what, 403) {
			t.Errorf("%s: never refused with 403; the program said:\n%s", what, strings.Join(lines, "\n"))
		}
	}
	checkDeletedPodToken(t, s, a.DataDir)
}

const inclusterManifest = `apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: sat}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-lister, namespace: sat}
rules:
- {apiGroups: [""], resources: [pods], verbs: [list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader-lists-pods, namespace: sat}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-lister}
subjects:
- {kind: ServiceAccount, name: reader, namespace: sat}
---
apiVersion: v1
kind: Pod
metadata: {name: incluster, namespace: sat}
spec:
  nodeName: na
  serviceAccountName: reader
  terminationGracePeriodSeconds: 1
  containers:
  - {name: incluster, image: %s, imagePullPolicy: Never, command: ["/bin/incluster"]}
`

// waitInClusterRefresh waits until the program has listed its pods
// successfully after its first token was dead (first success + life +
// leeway + 2 s), with more than one token, and returns its output.
func waitInClusterRefresh(t *testing.T, s *cluster.Server) []string {
	t.Helper()
	var lines []string
	ok := false
	deadline := time.Now().Add(90 * time.Second)
	for !ok && time.Now().Before(deadline) {
		time.Sleep(2 * time.Second)
		out, _, err := s.Kubectl("logs", "-n", "sat", "incluster")
		if err != nil {
			continue
		}
		lines = strings.Split(strings.TrimSpace(out), "\n")
		ok = refreshedAndWorking(lines)
	}
	if !ok {
		t.Fatalf("the in-cluster client did not keep listing pods past its first token's life; it said:\n%s\nserver:\n%s",
			strings.Join(lines, "\n"), tail(s.Logs(), 40))
	}
	return lines
}

// refreshedAndWorking: a "pods-ns 200" line more than life+12 s after the
// first one, and at least two token ids among the successes.
func refreshedAndWorking(lines []string) bool {
	first := int64(0)
	tokens := map[string]bool{}
	late := false
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 4 || f[1] != "pods-ns" || f[2] != "200" {
			continue
		}
		ts, _ := strconv.ParseInt(f[0], 10, 64)
		if first == 0 {
			first = ts
		}
		tokens[f[3]] = true
		late = late || ts >= first+int64(saTokenLife/time.Second)+12
	}
	return late && len(tokens) >= 2
}

func hasResult(lines []string, what string, code int) bool {
	for _, l := range lines {
		if f := strings.Fields(l); len(f) >= 3 && f[1] == what && f[2] == strconv.Itoa(code) {
			return true
		}
	}
	return false
}

// checkDeletedPodToken takes the pod's current token from its volume on
// the node, sees the API accept it (200), deletes the pod and sees the
// same token refused (401).
func checkDeletedPodToken(t *testing.T, s *cluster.Server, agentDir string) {
	t.Helper()
	uid := s.MustKubectl("get", "pod", "-n", "sat", "incluster", "-o", "jsonpath={.metadata.uid}")
	files, _ := filepath.Glob(filepath.Join(agentDir, "agent", "pods", uid, "volumes", "kube-api-access-*", "token"))
	if len(files) != 1 {
		t.Fatalf("token files of pod %s: %v, want one", uid, files)
	}
	token, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if code := apiStatus(t, s, string(token)); code != http.StatusOK {
		t.Fatalf("the pod's token before deletion: %d, want 200", code)
	}
	s.MustKubectl("delete", "pod", "-n", "sat", "incluster", "--wait=true", "--timeout=30s")
	if code := apiStatus(t, s, string(token)); code != http.StatusUnauthorized {
		t.Fatalf("the deleted pod's token: %d, want 401", code)
	}
}

// apiStatus lists the pods of namespace sat with token and returns the
// HTTP status.
func apiStatus(t *testing.T, s *cluster.Server, token string) int {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(s.DataDir, "server", "tls", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://%s:%d/api/v1/namespaces/sat/pods", s.Host, s.Port), nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
