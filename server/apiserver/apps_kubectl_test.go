//go:build kubectl

package apiserver

import (
	"strings"
	"testing"
	"time"
)

// TestKubectlCreateAndGetNewKinds creates the kinds charts render with
// kubectl's generators and manifests and checks kubectl get prints
// upstream's columns for them.
func TestKubectlCreateAndGetNewKinds(t *testing.T) {
	eachKubectl(t, testCreateAndGetNewKinds)
}

func testCreateAndGetNewKinds(t *testing.T, k *kubectlEnv) {
	out := k.ok(t, "", "create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *", "--", "date")
	wantContains(t, out, "cronjob.batch/nightly created")
	wantContains(t, k.ok(t, "", "get", "cj"), "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE",
		"nightly", "0 3 * * *", "<none>", "False")
	bad, err := k.run(t, "", "create", "cronjob", "bad", "--image=busybox", "--schedule=0 25 * * *")
	if err == nil || !strings.Contains(bad, "spec.schedule") {
		t.Fatalf("bad schedule: got %v\n%s\nwant a refusal naming spec.schedule", err, bad)
	}
	wantContains(t, k.ok(t, "", "create", "ingress", "web", "--class=traefik", "--rule=a.example.com/*=web:80,tls=web-tls"),
		"ingress.networking.k8s.io/web created")
	wantContains(t, k.ok(t, "", "get", "ing", "web"), "NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "web", "traefik", "a.example.com", "80, 443")
	wantContains(t, k.ok(t, stsYAML, "apply", "-f", "-"), "statefulset.apps/db created")
	wantContains(t, k.ok(t, "", "get", "sts"), "NAME", "READY", "db", "0/2")
	wantContains(t, k.ok(t, "", "scale", "sts", "db", "--replicas=3"), "scaled")
	wantContains(t, k.ok(t, "", "get", "all"), "statefulset.apps/db", "cronjob.batch/nightly")
	wantContains(t, k.ok(t, scYAML, "apply", "-f", "-"), "storageclass.storage.k8s.io/local-path created")
	wantContains(t, k.ok(t, "", "get", "sc"), "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "local-path (default)", "rancher.io/local-path", "WaitForFirstConsumer")
	wantContains(t, k.ok(t, netpolYAML, "apply", "-f", "-"), "networkpolicy.networking.k8s.io/deny created")
	wantContains(t, k.ok(t, "", "get", "netpol"), "POD-SELECTOR", "deny", "app=db")
	wantContains(t, k.ok(t, "", "explain", "cronjob.spec.schedule"), "The schedule in Cron format")
	wantContains(t, k.ok(t, "", "explain", "hpa.spec", "--api-version=autoscaling/v1"), "targetCPUUtilizationPercentage")
	wantContains(t, k.ok(t, "", "explain", "hpa.spec"), "metrics", "behavior")
}

const stsYAML = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "redis:7"}]}
`

const scYAML = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local-path
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
`

const netpolYAML = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {matchLabels: {app: db}}
`

const hpaV1YAML = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 6
  targetCPUUtilizationPercentage: 65
`

// TestKubectlHPABothVersions writes an HPA as autoscaling/v1 and reads,
// watches and edits it through both versions.
func TestKubectlHPABothVersions(t *testing.T) {
	eachKubectl(t, testHPABothVersions)
}

func testHPABothVersions(t *testing.T, k *kubectlEnv) {
	wantContains(t, k.ok(t, "", "api-versions"), "autoscaling/v1", "autoscaling/v2", "events.k8s.io/v1")
	wantContains(t, k.ok(t, hpaV1YAML, "apply", "-f", "-"), "horizontalpodautoscaler.autoscaling/web created")
	wantContains(t, k.ok(t, "", "get", "hpa"), "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "Deployment/web", "cpu: <unknown>/65%", "2", "6")
	v2 := k.ok(t, "", "get", "hpa.v2.autoscaling", "web", "-o", "jsonpath={.apiVersion} {.spec.metrics[0].resource.target.averageUtilization}")
	if v2 != "autoscaling/v2 65" {
		t.Fatalf("got %q through v2, want autoscaling/v2 65", v2)
	}
	v1 := k.ok(t, "", "get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage}")
	if v1 != "autoscaling/v1 65" {
		t.Fatalf("got %q through v1, want autoscaling/v1 65", v1)
	}
	watch := k.start(t, "get", "horizontalpodautoscalers.v1.autoscaling", "--watch-only", "-o", "jsonpath={.apiVersion} {.spec.maxReplicas}{\"\\n\"}")
	time.Sleep(time.Second)
	wantContains(t, k.ok(t, "", "patch", "hpa.v2.autoscaling", "web", "--type=merge", "-p", `{"spec":{"maxReplicas":9}}`), "patched")
	watch.waitFor(t, "autoscaling/v1 9")
	wantContains(t, k.ok(t, strings.Replace(hpaV1YAML, "maxReplicas: 6", "maxReplicas: 7", 1), "apply", "--server-side", "--force-conflicts", "-f", "-"), "serverside-applied")
	wantContains(t, k.ok(t, "", "get", "hpa.v2.autoscaling", "web", "-o", "jsonpath={.spec.maxReplicas}"), "7")
	// A second manager applies through v2: server-side apply converts the
	// first manager's v1 field set to compare.
	wantContains(t, k.ok(t, hpaV2YAML, "apply", "--server-side", "--field-manager=other", "-f", "-"), "serverside-applied")
	wantContains(t, k.ok(t, "", "get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "yaml"),
		"targetCPUUtilizationPercentage: 65", `autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Resource","resource":{"name":"memory"`)
}

const hpaV2YAML = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 7
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 65}}}
  - {type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 50}}}
`

const eventV1YAML = `apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: web.scaled}
eventTime: "2026-11-26T10:00:00.000000Z"
reportingController: example.com/scaler
reportingInstance: scaler-1
action: Scale
reason: Scaled
note: scaled web to 3
type: Normal
regarding: {apiVersion: apps/v1, kind: Deployment, name: web, namespace: default}
`

// TestKubectlEventsBothGroups writes an Event as a newer client does
// (events.k8s.io/v1) and finds it with kubectl get events (core v1).
func TestKubectlEventsBothGroups(t *testing.T) {
	k := newKubectlEnv(t)
	wantContains(t, k.ok(t, eventV1YAML, "create", "-f", "-"), "event.events.k8s.io/web.scaled created")
	wantContains(t, k.ok(t, "", "get", "events"), "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE",
		"Normal", "Scaled", "deployment/web", "scaled web to 3")
	wantContains(t, k.ok(t, "", "get", "events.v1.events.k8s.io", "-o", "wide"), "Scaled", "deployment/web", "example.com/scaler, scaler-1")
	wantContains(t, k.ok(t, "", "get", "events.v1.events.k8s.io", "web.scaled", "-o", "jsonpath={.note}/{.regarding.name}"), "scaled web to 3/web")
	bad, err := k.run(t, strings.Replace(eventV1YAML, "reportingController: example.com/scaler\n", "", 1), "create", "-f", "-")
	if err == nil || !strings.Contains(bad, "reportingController: Required value") {
		t.Fatalf("got %v\n%s\nwant a refusal naming reportingController", err, bad)
	}
}
