package scheduler

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// claimBinder is a storeBinder that records the selected nodes.
type claimBinder struct {
	*storeBinder
	mu       sync.Mutex
	selected map[string]string // claim -> node
}

func (b *claimBinder) SelectNode(_ context.Context, namespace, claim, node string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.selected[namespace+"/"+claim] = node
	return nil
}

func (b *claimBinder) selectedNode(key string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.selected[key]
}

func putStored(t *testing.T, store datastore.Store, res *api.Resource, obj api.Object) {
	t.Helper()
	data, err := api.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Create(context.Background(), res.Key(obj.GetNamespace(), obj.GetName()), data); err != nil {
		t.Fatal(err)
	}
}

func storageNode(name, capacity string) *corev1.Node {
	return makeNode(name, func(n *corev1.Node) {
		n.Annotations = map[string]string{api.AnnotationLocalStoragePath: "/srv/storage"}
		if capacity != "" {
			q := resource.MustParse(capacity)
			n.Annotations[api.AnnotationLocalStorageCapacity] = fmt.Sprint(q.Value())
		}
	})
}

func claimPod(name string, claims ...string) *corev1.Pod {
	return makePod("default", name, func(p *corev1.Pod) {
		for _, c := range claims {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: c, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
		}
	})
}

func storedClaim(name, size, volume string) *corev1.PersistentVolumeClaim {
	class := api.StorageClassLocalPath
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: volume,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

// TestVolumesPlacePods: an unbound local-path claim goes to a node with
// room (the node's capacity less its local-path volumes) and gets that
// node selected; a bound claim keeps its pod on the volume's node; a
// missing claim keeps the pod pending with upstream's message.
func TestVolumesPlacePods(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &claimBinder{storeBinder: &storeBinder{store: store}, selected: map[string]string{}}
	for _, n := range []*corev1.Node{storageNode("small", "1Gi"), storageNode("big", "10Gi"), makeNode("nopath")} {
		putObject(t, store, n)
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	putStored(t, store, classesResource, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: api.StorageClassLocalPath},
		Provisioner: api.ProvisionerLocalPath, VolumeBindingMode: &wffc})
	putStored(t, store, claimsResource, storedClaim("fresh", "5Gi", ""))
	putStored(t, store, claimsResource, storedClaim("old", "100Mi", "pv-old"))
	putStored(t, store, volumesResource, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-old"},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"small"}}}}}}}}})
	for _, p := range []*corev1.Pod{claimPod("a", "fresh"), claimPod("b", "old"), claimPod("b2", "old"),
		claimPod("b3", "old"), claimPod("c", "missing")} {
		putObject(t, store, p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cache := informer.New(store, informer.Config{Logger: testLogger(t)})
	for _, r := range []*api.Resource{nodesResource, podsResource, claimsResource, volumesResource, classesResource} {
		cache.Informer(r)
	}
	cache.Start(ctx)
	t.Cleanup(func() { cancel(); cache.Stop() })
	s := startSchedulerOnCache(t, cache, binder)
	t.Cleanup(s.Stop)

	waitPod(t, store, "default", "a", "on big", func(p *corev1.Pod) bool { return p.Spec.NodeName == "big" })
	if got := binder.selectedNode("default/fresh"); got != "big" {
		t.Errorf("selected node of fresh: got %q, want big", got)
	}
	for _, name := range []string{"b", "b2", "b3"} {
		waitPod(t, store, "default", name, "on small", func(p *corev1.Pod) bool { return p.Spec.NodeName == "small" })
	}
	want := `0/3 nodes are available: persistentvolumeclaim "missing" not found.`
	waitPod(t, store, "default", "c", "unschedulable", func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Message == want {
				return true
			}
		}
		return false
	})
}

// TestVolumeFilter checks each reason of the filter on one node.
func TestVolumeFilter(t *testing.T) {
	onSmall := api.VolumeNodeMatcher(&corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"other"}}}}}}}}})
	e := newEnv(t, []*corev1.Node{storageNode("n", "1Gi"), makeNode("bare")})
	e.cache.updateSnapshot(e.snap)
	cases := []struct {
		name string
		node string
		vols *podVolumes
		want []string
	}{
		{"no claims", "n", nil, nil},
		{"fits", "n", &podVolumes{local: 512 << 20, used: map[string]int64{"n": 256 << 20}}, nil},
		{"full", "n", &podVolumes{local: 512 << 20, used: map[string]int64{"n": 768 << 20}}, reasonNoStorage},
		{"no path", "bare", &podVolumes{local: 1}, reasonNoLocalPath},
		{"affinity", "n", &podVolumes{bound: []*api.NodeMatcher{onSmall}}, reasonVolumeAffinity},
		{"no static volume", "n", &podVolumes{static: [][]*api.NodeMatcher{{onSmall}}}, reasonNoVolume},
		{"static anywhere", "n", &podVolumes{static: [][]*api.NodeMatcher{{nil}}}, nil},
	}
	for _, tc := range cases {
		got := volumeFilter{}.filter(&cycle{volumes: tc.vols}, e.snap.nodes[tc.node])
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
