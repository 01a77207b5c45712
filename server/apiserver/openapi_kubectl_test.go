//go:build kubectl

package apiserver

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kubectls are the real kubectl binaries the OpenAPI tests drive: 1.32
// through gcloud's dispatcher, and the 1.27 and 1.33 it ships beside it.
var kubectls = []string{"kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"}

func eachKubectl(t *testing.T, f func(t *testing.T, k *kubectlEnv)) {
	for _, bin := range kubectls {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			if _, err := exec.LookPath(bin); err != nil {
				t.Fatalf("%s is required for this test: %v", bin, err)
			}
			k := newKubectlEnv(t)
			k.bin = bin
			f(t, k)
		})
	}
}

// TestKubectlExplain: kubectl explain shows upstream's descriptions,
// types and enum values from the generated schemas.
func TestKubectlExplain(t *testing.T) {
	eachKubectl(t, func(t *testing.T, k *kubectlEnv) {
		out := k.ok(t, "", "explain", "deployment.spec.strategy")
		wantContains(t, out, "KIND:", "Deployment", "FIELD: strategy <DeploymentStrategy>",
			"The deployment strategy to use to replace existing pods with new ones.",
			"rollingUpdate", "Rolling update config params.")
		out = k.ok(t, "", "explain", "pod.spec.containers")
		wantContains(t, out, "FIELD: containers <[]Container>",
			"List of containers belonging to the pod.", "image\t<string>", "name\t<string> -required-")
		out = k.ok(t, "", "explain", "deployment.spec.strategy.type")
		wantContains(t, out, `Possible enum values:`, `"Recreate"`, `"RollingUpdate"`)
		wantContains(t, k.ok(t, "", "explain", "leases.spec.holderIdentity"), "holderIdentity contains the identity of the holder")
		wantContains(t, k.ok(t, "", "explain", "pods", "--output=plaintext-openapiv2"),
			"Pod is a collection of containers that can run on a host.")
	})
}

const typoDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1
        imagePullPolicyy: Always
`

// TestKubectlApplyRefusesMisspelledFields: with default flags, kubectl
// apply of a manifest with a misspelled field fails naming the field,
// whether it creates the object or patches it.
func TestKubectlApplyRefusesMisspelledFields(t *testing.T) {
	eachKubectl(t, func(t *testing.T, k *kubectlEnv) {
		const field = `unknown field "spec.template.spec.containers[0].imagePullPolicyy"`
		out, err := k.run(t, typoDeployment, "apply", "-f", "-")
		if err == nil || !strings.Contains(out, field) {
			t.Fatalf("create with a misspelled field: got %v\n%s\nwant a refusal naming %s", err, out, field)
		}
		good := strings.Replace(typoDeployment, "        imagePullPolicyy: Always\n", "", 1)
		wantContains(t, k.ok(t, good, "apply", "-f", "-"), "deployment.apps/web created")
		out, err = k.run(t, strings.Replace(typoDeployment, "replicas: 1", "replicas: 2", 1), "apply", "-f", "-")
		if err == nil || !strings.Contains(out, field) {
			t.Fatalf("update with a misspelled field: got %v\n%s\nwant a refusal naming %s", err, out, field)
		}
		out, err = k.run(t, typoDeployment, "apply", "--server-side", "-f", "-")
		if err == nil || !strings.Contains(out, "imagePullPolicyy") {
			t.Fatalf("server-side apply with a misspelled field: got %v\n%s", err, out)
		}
		wantContains(t, k.ok(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"), "1")
	})
}

const teamDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: NAME
        image: IMAGE
`

func teamApply(name, image string) string {
	return strings.NewReplacer("NAME", name, "IMAGE", image).Replace(teamDeployment)
}

// TestKubectlServerSideApplyManagersShareAPod: two field managers each
// apply their own container of one pod template; both stay, and taking
// the other's container is a conflict naming its manager.
func TestKubectlServerSideApplyManagersShareAPod(t *testing.T) {
	eachKubectl(t, func(t *testing.T, k *kubectlEnv) {
		ssa := func(manager string, extra ...string) []string {
			return append([]string{"apply", "--server-side", "--field-manager=" + manager, "-f", "-"}, extra...)
		}
		wantContains(t, k.ok(t, teamApply("a", "nginx:1"), ssa("team-a")...), "serverside-applied")
		wantContains(t, k.ok(t, teamApply("b", "redis:7"), ssa("team-b")...), "serverside-applied")
		images := `jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}`
		if got := k.ok(t, "", "get", "deploy", "web", "-o", images); got != "a=nginx:1 b=redis:7 " {
			t.Fatalf("got containers %q, want a and b", got)
		}
		out, err := k.run(t, teamApply("a", "nginx:2"), ssa("team-b")...)
		if err == nil || !strings.Contains(out, `conflict with "team-a"`) || !strings.Contains(out, `.spec.template.spec.containers[name="a"].image`) {
			t.Fatalf("taking team-a's image: got %v\n%s\nwant a conflict naming team-a and the field", err, out)
		}
		k.ok(t, teamApply("a", "nginx:2"), ssa("team-a")...)
		if got := k.ok(t, "", "get", "deploy", "web", "-o", images); got != "a=nginx:2 b=redis:7 " {
			t.Fatalf("got containers %q, want a updated and b kept", got)
		}
	})
}

// TestKubectlExplainKindAddedAtRunTime: a kind added while the server runs
// is in the OpenAPI documents at once, with the schema its row carries.
func TestKubectlExplainKindAddedAtRunTime(t *testing.T) {
	eachKubectl(t, func(t *testing.T, k *kubectlEnv) {
		k.ok(t, "", "api-resources") // kubectl caches discovery and OpenAPI from here on
		res := gadgetKind()
		res.Schema = []byte(`{"type":"object","description":"A Gadget is a thing of the test.","properties":{
			"apiVersion":{"type":"string"},"kind":{"type":"string"},
			"metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
			"spec":{"type":"object","description":"What the gadget should be.","properties":{"size":{"type":"integer","description":"How big it is."}}}}}`)
		if err := k.api.Registry().Kinds().Add(res); err != nil {
			t.Fatal(err)
		}
		wantContains(t, k.ok(t, "", "explain", "gadgets.spec"), "What the gadget should be.", "size\t<integer>", "How big it is.")
	})
}
