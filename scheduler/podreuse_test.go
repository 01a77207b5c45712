package scheduler

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// richPod sets every field newPodInfo reads, each to a value whose change
// changes the podInfo.
func richPod() *corev1.Pod {
	always := corev1.ContainerRestartPolicyAlways
	prio := int32(7)
	term := corev1.PodAffinityTerm{TopologyKey: "zone", Namespaces: []string{"other"},
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: "ns"}}}
	nodeTerm := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}
	req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"),
		corev1.ResourceMemory: resource.MustParse("64Mi"), corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}
	yes := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "uid-1",
			Labels:          map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: &yes}}},
		Spec: corev1.PodSpec{
			Priority: &prio, HostNetwork: true, NodeSelector: map[string]string{"arch": "amd64"},
			Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")},
			Affinity: &corev1.Affinity{
				NodeAffinity: &corev1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{nodeTerm}},
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 5, Preference: nodeTerm}}},
				PodAffinity:     &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}},
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}},
			},
			InitContainers: []corev1.Container{
				{Name: "side", Image: "envoy:1", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: req}},
				{Name: "init", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: req}}},
			Containers: []corev1.Container{{Name: "c", Image: "nginx:1", Resources: corev1.ResourceRequirements{Requests: req},
				Ports: []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080, Protocol: corev1.ProtocolUDP, HostIP: "10.0.0.1"},
					{ContainerPort: 9090}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// sameDerived reports whether two podInfos derive the same, the pods
// aside: every field of podInfo, whatever fields it gains.
func sameDerived(a, b *podInfo) bool {
	x, y := *a, *b
	x.pod, y.pod = nil, nil
	return reflect.DeepEqual(x, y)
}

// TestSameDerivationComparesEveryInput changes every field of a pod, one
// at a time, and checks that a change that changes newPodInfo's result is
// one sameDerivation sees. It also checks the walk changed each input
// newPodInfo reads (richPod sets them all).
func TestSameDerivationComparesEveryInput(t *testing.T) {
	bare := func(p *corev1.Pod) { p.OwnerReferences = nil } // grouped by its app label
	changing := append(changingFields(t, func(*corev1.Pod) {}), changingFields(t, bare)...)
	for _, in := range []string{".ObjectMeta.Namespace", ".ObjectMeta.Name", ".ObjectMeta.UID", ".ObjectMeta.Labels[app]",
		".ObjectMeta.OwnerReferences[0].UID", ".ObjectMeta.OwnerReferences[0].Controller=nil", ".Spec.Priority",
		".Spec.HostNetwork", ".Spec.NodeSelector[arch]", ".Spec.Overhead[cpu]",
		".Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight",
		".Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution=nil",
		".Spec.Affinity.PodAffinity=nil", ".Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey",
		".Spec.Containers[0].Image", ".Spec.Containers[0].Resources.Requests[memory]", ".Spec.Containers[0].Ports[0].HostPort",
		".Spec.Containers[0].Ports[0].Protocol", ".Spec.Containers[0].Ports[0].HostIP", ".Spec.Containers[0].Ports[1].ContainerPort",
		".Spec.InitContainers[0].RestartPolicy=nil", ".Spec.InitContainers[1].Resources.Requests[ephemeral-storage]",
		".Spec.InitContainers[1].Image", ".Spec.Containers=nil"} {
		if !slices.Contains(changing, in) {
			t.Errorf("changing %s did not change the podInfo: richPod does not exercise it", in)
		}
	}
	// A phase change counts only across terminal and not: the walk's
	// mutation of a string cannot reach Succeeded.
	orig, pod := richPod(), richPod()
	pod.Status.Phase = corev1.PodSucceeded
	if sameDerivation(orig, pod) {
		t.Error("Running to Succeeded: sameDerivation reports no change")
	}
}

// changingFields walks the mutations of richPod changed by mod, checks
// sameDerivation sees each one that changes newPodInfo's result, and
// returns the paths of those.
func changingFields(t *testing.T, mod func(*corev1.Pod)) []string {
	t.Helper()
	orig, pod := richPod(), richPod()
	mod(orig)
	mod(pod)
	want := newPodInfo(orig)
	var changing []string
	walkMutations(reflect.ValueOf(pod).Elem(), "", func(path string) {
		if sameDerived(want, newPodInfo(pod)) {
			return
		}
		changing = append(changing, path)
		if sameDerivation(orig, pod) {
			t.Errorf("%s: changes the podInfo, but sameDerivation reports no change", path)
		}
	})
	if !sameDerivation(orig, pod) || !sameDerived(want, newPodInfo(pod)) {
		t.Fatal("the walk did not restore the pod")
	}
	return changing
}

// walkMutations changes each field reachable from v, one at a time, calls
// check(path) while it is changed, and puts it back: strings get a suffix,
// numbers grow, booleans flip, pointers, slices and maps become nil (or a
// nil one non-nil), slices and maps gain an element; quantities change
// amount. Fields it cannot set (unexported) are left alone.
func walkMutations(v reflect.Value, path string, check func(string)) {
	if q, ok := v.Addr().Interface().(*resource.Quantity); ok {
		old := q.DeepCopy()
		q.Add(resource.MustParse("1"))
		check(path)
		*q = old
		return
	}
	switch v.Kind() {
	case reflect.String:
		old := v.String()
		v.SetString(old + "x")
		check(path)
		v.SetString(old)
	case reflect.Bool:
		v.SetBool(!v.Bool())
		check(path)
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
		check(path)
		v.SetInt(v.Int() - 1)
	case reflect.Pointer:
		walkPointer(v, path, check)
	case reflect.Slice:
		walkSlice(v, path, check)
	case reflect.Map:
		walkMap(v, path, check)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				walkMutations(v.Field(i), path+"."+f.Name, check)
			}
		}
	}
}

func walkPointer(v reflect.Value, path string, check func(string)) {
	old := reflect.New(v.Type()).Elem()
	old.Set(v)
	if v.IsNil() {
		v.Set(reflect.New(v.Type().Elem()))
		check(path + "=new")
		v.Set(old)
		return
	}
	v.SetZero()
	check(path + "=nil")
	v.Set(old)
	walkMutations(v.Elem(), path, check)
}

func walkSlice(v reflect.Value, path string, check func(string)) {
	old := reflect.New(v.Type()).Elem()
	old.Set(v)
	if !v.IsNil() {
		v.SetZero()
		check(path + "=nil")
		v.Set(old)
	}
	v.Set(reflect.Append(reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()+1), old), reflect.Zero(v.Type().Elem())))
	check(path + "+elem")
	v.Set(old)
	for i := range v.Len() {
		walkMutations(v.Index(i), fmt.Sprintf("%s[%d]", path, i), check)
	}
}

func walkMap(v reflect.Value, path string, check func(string)) {
	old := reflect.New(v.Type()).Elem()
	old.Set(v)
	if !v.IsNil() {
		v.SetZero()
		check(path + "=nil")
	}
	// Changes go to a copy of the map, so the original is put back whole.
	for _, k := range old.MapKeys() {
		elem := reflect.New(v.Type().Elem()).Elem()
		elem.Set(old.MapIndex(k))
		walkMutations(elem, fmt.Sprintf("%s[%v]", path, k), func(p string) {
			m := reflect.MakeMap(v.Type())
			for _, k2 := range old.MapKeys() {
				m.SetMapIndex(k2, old.MapIndex(k2))
			}
			m.SetMapIndex(k, elem)
			v.Set(m)
			check(p)
			v.Set(old)
		})
	}
	if v.Type().Key().Kind() == reflect.String {
		m := reflect.MakeMap(v.Type())
		for _, k := range old.MapKeys() {
			m.SetMapIndex(k, old.MapIndex(k))
		}
		m.SetMapIndex(reflect.ValueOf("added").Convert(v.Type().Key()), reflect.Zero(v.Type().Elem()))
		v.Set(m)
		check(path + "+key")
	}
	v.Set(old)
}

// TestPodInfoForReusesUnchangedDerivations: the binding and a status
// write keep the derivations (a copy, with the new pod); a changed input
// derives afresh; another pod under the same name is never reused.
func TestPodInfoForReusesUnchangedDerivations(t *testing.T) {
	prev := newPodInfo(richPod())
	bound := richPod()
	bound.Spec.NodeName = "n1"
	bound.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	got := podInfoFor(prev, bound)
	if got == prev || got.pod != bound || &got.images[0] != &prev.images[0] {
		t.Fatalf("bound version: got a podInfo that does not reuse prev's derivations with the new pod")
	}
	for name, change := range map[string]func(*corev1.Pod){
		"request": func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1")
		},
		"uid":   func(p *corev1.Pod) { p.UID = "uid-2" },
		"ended": func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed },
	} {
		cur := richPod()
		change(cur)
		got := podInfoFor(prev, cur)
		if sameDerived(got, prev) || !sameDerived(got, newPodInfo(cur)) {
			t.Errorf("%s changed: got the old derivations, want new ones", name)
		}
	}
	if got := podInfoFor(nil, bound); !sameDerived(got, prev) || got.pod != bound {
		t.Error("no previous version: want a podInfo derived from the pod")
	}
}
