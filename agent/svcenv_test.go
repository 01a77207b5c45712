package agent

import (
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// storeServiceEnv gives a namespace's Services plus default/kubernetes,
// skipping one that does not decode.
func TestStoreServiceEnv(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), StateDir))
	if err != nil {
		t.Fatal(err)
	}
	svc := func(ns, name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{ClusterIP: "10.43.0.5"}}
	}
	bad := mqtt.Change{Type: mqtt.Added, ObjectRef: ref(storeServices, "shop", "bad"), Object: []byte(`{"spec":7}`)}
	if err := store.Apply([]mqtt.Change{
		change(t, mqtt.Added, ref(storeServices, "default", "kubernetes"), svc("default", "kubernetes")),
		change(t, mqtt.Added, ref(storeServices, "default", "other"), svc("default", "other")),
		change(t, mqtt.Added, ref(storeServices, "shop", "web"), svc("shop", "web")), bad,
	}, 1); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range storeServiceEnv(store, slog.Default())("shop") {
		names = append(names, s.Namespace+"/"+s.Name)
	}
	slices.Sort(names)
	if want := []string{"default/kubernetes", "shop/web"}; !slices.Equal(names, want) {
		t.Fatalf("services = %v, want %v", names, want)
	}
}

// The pod manager waits for the Services only on an agent that routes,
// until default/kubernetes is in the store.
func TestStoreServicesSynced(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), StateDir))
	if err != nil {
		t.Fatal(err)
	}
	routes := true
	synced := storeServicesSynced(store, func() bool { return routes })
	if synced() {
		t.Fatal("routing agent with no Services: got synced, want not")
	}
	kube := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"}}
	if err := store.Apply([]mqtt.Change{change(t, mqtt.Added, ref(storeServices, "default", "kubernetes"), kube)}, 1); err != nil {
		t.Fatal(err)
	}
	if !synced() {
		t.Fatal("default/kubernetes stored: got not synced, want synced")
	}
	routes = false
	empty, err := OpenStore(filepath.Join(t.TempDir(), StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if !storeServicesSynced(empty, func() bool { return routes })() {
		t.Fatal("agent that does not route: got not synced, want synced (it gets no Services)")
	}
}
