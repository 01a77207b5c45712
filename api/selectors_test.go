package api

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

func TestParseLabelSelector(t *testing.T) {
	set := labels.Set{"app": "web", "tier": "front", "n": "3"}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true}, {"app=web", true}, {"app==web", true}, {"app!=web", false}, {"app", true}, {"!app", false},
		{"missing", false}, {"!missing", true}, {"app in (web,db)", true}, {"app notin (web,db)", false},
		{"app=web,tier=back", false}, {"n>2", true}, {"n<2", false}, {"missing!=x", true},
	}
	for _, tc := range tests {
		s, err := ParseLabelSelector(tc.sel)
		if err != nil {
			t.Errorf("%q: %v", tc.sel, err)
			continue
		}
		if got := s.Matches(set); got != tc.want {
			t.Errorf("%q matches %v: got %v, want %v", tc.sel, set, got, tc.want)
		}
	}
	for _, bad := range []string{"app in (web", "a b", "=x", "app=(x)", "x=" + strings.Repeat("v", 64)} {
		if _, err := ParseLabelSelector(bad); err == nil || !strings.Contains(err.Error(), "labelSelector") {
			t.Errorf("%q: got error %v, want one naming labelSelector", bad, err)
		}
	}
}

func TestFieldSet(t *testing.T) {
	tests := []struct {
		kind, manifest string
		want           fields.Set
	}{
		{"Pod", "metadata: {name: p, namespace: ns}\nspec: {nodeName: n1, containers: [{name: c, image: x}]}\nstatus: {phase: Running, podIPs: [{ip: 10.0.0.5}]}",
			fields.Set{"metadata.name": "p", "metadata.namespace": "ns", "spec.nodeName": "n1", "status.phase": "Running",
				"status.podIP": "10.0.0.5", "spec.restartPolicy": "", "spec.schedulerName": "", "spec.serviceAccountName": "",
				"spec.hostNetwork": "false", "status.nominatedNodeName": ""}},
		{"Event", "metadata: {name: e, namespace: ns}\ninvolvedObject: {kind: Pod, name: p, uid: u1}\nreason: Pulled\ntype: Normal\nsource: {component: kubelet}",
			fields.Set{"metadata.name": "e", "metadata.namespace": "ns", "involvedObject.kind": "Pod", "involvedObject.name": "p",
				"involvedObject.uid": "u1", "involvedObject.namespace": "", "involvedObject.apiVersion": "",
				"involvedObject.resourceVersion": "", "involvedObject.fieldPath": "", "reason": "Pulled", "type": "Normal",
				"source": "kubelet", "reportingComponent": ""}},
		{"Secret", "metadata: {name: s}\ntype: kubernetes.io/tls", fields.Set{"metadata.name": "s", "metadata.namespace": "", "type": "kubernetes.io/tls"}},
		{"Node", "metadata: {name: \"n\"}\nspec: {unschedulable: true}", fields.Set{"metadata.name": "n", "metadata.namespace": "", "spec.unschedulable": "true"}},
		{"Namespace", "metadata: {name: x}\nstatus: {phase: Active}", fields.Set{"metadata.name": "x", "metadata.namespace": "", "status.phase": "Active"}},
		{"Job", "metadata: {name: j}\nstatus: {succeeded: 2}", fields.Set{"metadata.name": "j", "metadata.namespace": "", "status.successful": "2"}},
		{"ConfigMap", "metadata: {name: c, namespace: d}", fields.Set{"metadata.name": "c", "metadata.namespace": "d"}},
	}
	for _, tc := range tests {
		got := FieldSet(res(t, tc.kind), decodeYAML(t, tc.kind, tc.manifest))
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.kind, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s %s: got %q, want %q", tc.kind, k, got[k], v)
			}
		}
	}
}

func TestParseFieldSelector(t *testing.T) {
	pod := decodeYAML(t, "Pod", "metadata: {name: p1, namespace: default}\nspec: {nodeName: n1}")
	ev := decodeYAML(t, "Event", "metadata: {name: e, namespace: default}\ninvolvedObject: {kind: Deployment, name: web, namespace: default, uid: u1}")
	tests := []struct {
		kind, sel string
		obj       Object
		want      bool
	}{
		{"Pod", "metadata.name=p1", pod, true},
		{"Pod", "metadata.name==p2", pod, false},
		{"Pod", "spec.nodeName=n1,metadata.namespace=default", pod, true},
		{"Pod", "spec.nodeName=", pod, false},
		{"Pod", "status.phase!=Running", pod, true},
		{"Pod", "status.podIP=", pod, true},
		{"Event", "involvedObject.name=web,involvedObject.namespace=default,involvedObject.uid=u1,involvedObject.kind=Deployment", ev, true},
		{"Event", "involvedObject.uid=u2", ev, false},
	}
	for _, tc := range tests {
		s, err := ParseFieldSelector(res(t, tc.kind), tc.sel)
		if err != nil {
			t.Errorf("%q: %v", tc.sel, err)
			continue
		}
		if got := s.Matches(FieldSet(res(t, tc.kind), tc.obj)); got != tc.want {
			t.Errorf("%q: got %v, want %v", tc.sel, got, tc.want)
		}
	}
	for sel, want := range map[string]string{
		"spec.foo=x":         "field label not supported: spec.foo",
		"spec.nodeName":      "invalid fieldSelector",
		"involvedObject.uid": "invalid fieldSelector",
	} {
		if _, err := ParseFieldSelector(res(t, "Pod"), sel); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got error %v, want one containing %q", sel, err, want)
		}
	}
	if _, err := ParseFieldSelector(res(t, "ConfigMap"), "spec.nodeName=x"); err == nil {
		t.Error("pod field on configmaps: got no error")
	}
}

func FuzzParseLabelSelector(f *testing.F) {
	for _, s := range []string{"", "a=b", "a==b,c!=d", "x in (a,b),!y", "k notin (v)", "n>3", "example.com/k=v_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseLabelSelector(s)
		if err != nil {
			return
		}
		again, err := ParseLabelSelector(sel.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, sel.String(), err)
		}
		if again.String() != sel.String() {
			t.Fatalf("%q: printed %q, re-printed %q", s, sel.String(), again.String())
		}
		_ = sel.Matches(labels.Set{"a": "b"})
	})
}

func FuzzParseFieldSelector(f *testing.F) {
	for _, s := range []string{"", "metadata.name=x", "spec.nodeName!=,status.phase==Running", `metadata.name=a\,b`, "spec.foo=1"} {
		f.Add(uint8(2), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, s string) {
		r := All()[int(pick)%len(All())]
		sel, err := ParseFieldSelector(r, s)
		if err != nil {
			return
		}
		again, err := ParseFieldSelector(r, sel.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, sel.String(), err)
		}
		if again.String() != sel.String() {
			t.Fatalf("%q: printed %q, re-printed %q", s, sel.String(), again.String())
		}
		_ = sel.Matches(FieldSet(r, r.New()))
	})
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"1", "100m", "1.5Gi", "2e3", "0.1", "-1", "1Ki", "500M", "9223372036854775807", "1e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		printed := q.String()
		again, err := ParseQuantity(printed)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, printed, err)
		}
		if again.Cmp(q) != 0 {
			t.Fatalf("%q: printed %q, which compares unequal", s, printed)
		}
		if again.String() != printed {
			t.Fatalf("%q: printed %q, re-printed %q", s, printed, again.String())
		}
		data, err := q.MarshalJSON()
		if err != nil {
			t.Fatalf("%q: marshal: %v", s, err)
		}
		var back resource.Quantity
		if err := back.UnmarshalJSON(data); err != nil || back.Cmp(q) != 0 {
			t.Fatalf("%q: JSON %s round trip: %v, %v", s, data, back.String(), err)
		}
	})
}
