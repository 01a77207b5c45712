//go:build kubectl

package apiserver

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/server/serviceaccounts"
	"github.com/bramble-edge/bramble/server/servicealloc"
)

// withServiceAdmission adds the server's ServiceAccount and Service
// allocation admission to k's registry, as the server does.
func withServiceAdmission(t *testing.T, k *kubectlEnv) {
	t.Helper()
	reg := k.api.Registry()
	sa := serviceaccounts.New(reg)
	alloc, err := servicealloc.New(reg, servicealloc.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := alloc.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	reg.Use(sa, alloc)
	if err := sa.EnsureAll(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestKubectlServices drives Services and ServiceAccounts with kubectl:
// the create service generators, expose, allocation clashes and the
// columns of get svc and get sa.
func TestKubectlServices(t *testing.T) {
	k := newKubectlEnv(t)
	withServiceAdmission(t, k)
	wantContains(t, k.ok(t, "", "create", "service", "clusterip", "web", "--tcp=80:8080"), "service/web created")
	wantContains(t, k.ok(t, "", "create", "service", "nodeport", "np", "--tcp=80:8080", "--node-port=30080"), "service/np created")
	out, err := k.run(t, "", "create", "service", "nodeport", "np2", "--tcp=80:8080", "--node-port=30080")
	if err == nil || !strings.Contains(out, `spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`) {
		t.Fatalf("clash: got %v %q, want upstream's 422", err, out)
	}
	wantContains(t, k.ok(t, "", "create", "service", "clusterip", "hl", "--clusterip=None"), "service/hl created")
	wantContains(t, k.ok(t, "", "create", "deployment", "app", "--image=nginx:1", "--port=80"), "created")
	wantContains(t, k.ok(t, "", "expose", "deployment", "app", "--port=8080", "--target-port=80"), "service/app exposed")
	out = k.ok(t, "", "get", "svc", "-o", "wide")
	wantContains(t, out, "NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR")
	rows := map[string]*regexp.Regexp{
		"web": regexp.MustCompile(`(?m)^web\s+ClusterIP\s+10\.43\.\d+\.\d+\s+<none>\s+80/TCP\s+\S+\s+app=web$`),
		"np":  regexp.MustCompile(`(?m)^np\s+NodePort\s+10\.43\.\d+\.\d+\s+<none>\s+80:30080/TCP\s+\S+\s+app=np$`),
		"hl":  regexp.MustCompile(`(?m)^hl\s+ClusterIP\s+None\s+<none>\s+<none>\s+`),
		"app": regexp.MustCompile(`(?m)^app\s+ClusterIP\s+10\.43\.\d+\.\d+\s+<none>\s+8080/TCP\s+\S+\s+app=app$`),
	}
	for name, re := range rows {
		if !re.MatchString(out) {
			t.Fatalf("get svc -o wide: no row for %s like %s in\n%s", name, re, out)
		}
	}
	wantContains(t, k.ok(t, "", "get", "sa"), "NAME", "SECRETS", "default")
	wantContains(t, k.ok(t, "", "create", "namespace", "team"), "created")
	wantContains(t, k.ok(t, "", "get", "sa", "-n", "team", "default"), "default")
	out, err = k.run(t, "", "run", "p", "--image=nginx", `--overrides={"spec":{"serviceAccountName":"nope"}}`)
	if err == nil || !strings.Contains(out, `pods "p" is forbidden: error looking up service account default/nope: serviceaccount "nope" not found`) {
		t.Fatalf("pod with a missing service account: got %v %q", err, out)
	}
	wantContains(t, k.ok(t, "", "run", "p", "--image=nginx"), "pod/p created")
	if got := k.ok(t, "", "get", "pod", "p", "-o", "jsonpath={.spec.serviceAccountName}"); got != "default" {
		t.Fatalf("got serviceAccountName %q, want default", got)
	}
}
