package api

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
)

func TestScale(t *testing.T) {
	d := decodeYAML(t, "Deployment", `
metadata: {name: web, namespace: default, uid: u1, resourceVersion: "9"}
spec: {replicas: 2, selector: {matchLabels: {app: web}, matchExpressions: [{key: tier, operator: In, values: [a]}]}}
status: {replicas: 1}`)
	s, err := ScaleFor(d)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "web" || s.UID != "u1" || s.ResourceVersion != "9" || s.Spec.Replicas != 2 || s.Status.Replicas != 1 ||
		s.Status.Selector != "app=web,tier in (a)" {
		t.Errorf("got %+v", s)
	}
	if err := SetScale(d, &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 5}}); err != nil {
		t.Fatal(err)
	}
	if got := *d.(*appsv1.Deployment).Spec.Replicas; got != 5 {
		t.Errorf("replicas: got %d, want 5", got)
	}
	if err := SetScale(d, &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: -1}}); err == nil {
		t.Error("negative replicas: got no error")
	}
	rs := decodeYAML(t, "ReplicaSet", "metadata: {name: r}")
	if s, err := ScaleFor(rs); err != nil || s.Spec.Replicas != 1 {
		t.Errorf("replicaset without replicas: got %+v, %v; want 1", s, err)
	}
	if _, err := ScaleFor(decodeYAML(t, "Job", "metadata: {name: j}")); err == nil {
		t.Error("job scale: got no error")
	}
}
