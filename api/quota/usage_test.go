package quota

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// text prints a list sorted by name: "a=1 b=2".
func text(l corev1.ResourceList) string {
	var parts []string
	for k, q := range l {
		parts = append(parts, fmt.Sprintf("%s=%s", k, q.String()))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func TestUsage(t *testing.T) {
	now := time.Now()
	pods := api.MustLookup("", "v1", "pods")
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}}},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "64Mi"), Limits: list("memory", "128Mi")}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "64Mi")}}},
		Overhead: list("memory", "10Mi")}}
	want := "count/pods=1 cpu=2 limits.memory=138Mi memory=138Mi pods=1 requests.cpu=2 requests.memory=138Mi"
	if got := text(Usage(pods, p, now)); got != want {
		t.Errorf("pod: got %s, want %s", got, want)
	}
	p.Status.Phase = corev1.PodFailed
	if got := text(Usage(pods, p, now)); got != "count/pods=1" {
		t.Errorf("failed pod: got %s, want count/pods=1 only", got)
	}
	grace := int64(30)
	gone := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: now.Add(-time.Minute)}, DeletionGracePeriodSeconds: &grace}}
	if got := text(Usage(pods, gone, now)); got != "count/pods=1" {
		t.Errorf("pod past its grace period: got %s", got)
	}
	sc := "fast"
	claim := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &sc,
		Resources: corev1.VolumeResourceRequirements{Requests: list("storage", "5Gi")}}}
	claims := &api.Resource{Version: "v1", Name: "persistentvolumeclaims"}
	want = "count/persistentvolumeclaims=1 fast.storageclass.storage.k8s.io/persistentvolumeclaims=1 " +
		"fast.storageclass.storage.k8s.io/requests.storage=5Gi persistentvolumeclaims=1 requests.storage=5Gi"
	if got := text(Usage(claims, claim, now)); got != want {
		t.Errorf("claim: got %s, want %s", got, want)
	}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}, {Port: 443}}}}
	want = "count/services=1 services.loadbalancers=0 services.nodeports=2 services=1"
	if got := text(Usage(&api.Resource{Version: "v1", Name: "services"}, svc, now)); got != want {
		t.Errorf("service: got %s, want %s", got, want)
	}
	huge := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "h", Resources: corev1.ResourceRequirements{
		Requests: list("hugepages-2Mi", "4Mi", "example.com/gpu", "1"), Limits: list("hugepages-2Mi", "4Mi", "example.com/gpu", "1")}}}}}
	want = "count/pods=1 hugepages-2Mi=4Mi pods=1 requests.example.com/gpu=1 requests.hugepages-2Mi=4Mi"
	if got := text(Usage(pods, huge, now)); got != want {
		t.Errorf("hugepages and extended resources: got %s, want %s", got, want)
	}
	if got := CountName(api.MustLookup("apps", "v1", "deployments")); got != "count/deployments.apps" {
		t.Errorf("count name %s", got)
	}
}

func TestSourcesAndMissing(t *testing.T) {
	hard := list("requests.cpu", "1", "count/deployments.apps", "2", "configmaps", "3", "limits.memory", "1Gi")
	var names []string
	for _, r := range Sources(hard, BuiltIn) {
		names = append(names, r.Group+"/"+r.Name)
	}
	if got := strings.Join(names, ","); got != "/configmaps,/pods,apps/deployments" {
		t.Errorf("sources %s", got)
	}
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "b", Resources: corev1.ResourceRequirements{Requests: list("cpu", "1")}}, {Name: "a"}}}}
	if got, want := MissingCompute(hard, p), "limits.memory for: a,b; requests.cpu for: a"; got != want {
		t.Errorf("missing %q, want %q", got, want)
	}
}
