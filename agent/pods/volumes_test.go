package pods

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func readVolumeFile(t testing.TB, path string) (string, os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), fi.Mode().Perm()
}

func TestConfigMapAndSecretVolumes(t *testing.T) {
	store := &fakeStore{}
	store.set(KindConfigMap, "default", "cfg", map[string]string{"a": "one", "b": "two"})
	store.set(KindSecret, "default", "creds", map[string]string{"password": "s3cret"})
	mode := int32(0o640)
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
		{Name: "items", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: &mode,
			Items: []corev1.KeyToPath{{Key: "b", Path: "sub/bee"}}}}},
		{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds"}}},
	}
	dir := t.TempDir()
	v := newVolumes(dir, "uid-1", store.lookup)
	if err := v.prepare(context.Background(), pod); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	vols := filepath.Join(dir, "agent", "pods", "uid-1", "volumes")
	for _, c := range []struct {
		path, content string
		mode          os.FileMode
	}{
		{"cfg/a", "one", 0o644}, {"cfg/b", "two", 0o644},
		{"items/sub/bee", "two", 0o640}, {"sec/password", "s3cret", 0o600},
	} {
		got, m := readVolumeFile(t, filepath.Join(vols, c.path))
		if got != c.content || m != c.mode {
			t.Errorf("%s: got %q mode %o, want %q mode %o", c.path, got, m, c.content, c.mode)
		}
	}
	if _, err := os.Stat(filepath.Join(vols, "items", "a")); err == nil {
		t.Errorf("items: key a was written, want only the listed items")
	}
	// An update replaces the content and drops removed keys.
	store.set(KindConfigMap, "default", "cfg", map[string]string{"a": "uno"})
	if err := v.prepare(context.Background(), pod); err == nil {
		t.Errorf("items volume naming a removed key: got no error, want one")
	}
	pod.Spec.Volumes = pod.Spec.Volumes[:1]
	if err := v.prepare(context.Background(), pod); err != nil {
		t.Fatalf("prepare after update: %v", err)
	}
	if got, _ := readVolumeFile(t, filepath.Join(vols, "cfg", "a")); got != "uno" {
		t.Errorf("updated cfg/a: got %q, want uno", got)
	}
	if _, err := os.Lstat(filepath.Join(vols, "cfg", "b")); err == nil {
		t.Errorf("cfg/b still present after the key was removed")
	}
	entries, _ := os.ReadDir(filepath.Join(vols, "cfg"))
	if len(entries) != 3 { // a, ..data, one generation directory
		t.Errorf("cfg holds %d entries after the update, want 3 (old generation removed)", len(entries))
	}
}

func TestVolumeMountsAndSubPath(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "host")
	pod := testPod(corev1.RestartPolicyAlways, "app")
	dirOrCreate := corev1.HostPathDirectoryOrCreate
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: host, Type: &dirOrCreate}}},
	}
	v := newVolumes(dir, "uid-1", (&fakeStore{}).lookup)
	if err := v.prepare(context.Background(), pod); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	c := &corev1.Container{Name: "app", VolumeMounts: []corev1.VolumeMount{
		{Name: "scratch", MountPath: "/scratch"},
		{Name: "host", MountPath: "/data", SubPath: "app1", ReadOnly: true},
	}}
	got, err := v.mounts(c, nil)
	if err != nil {
		t.Fatalf("mounts: %v", err)
	}
	want := []runtime.Mount{
		{HostPath: filepath.Join(dir, "agent/pods/uid-1/volumes/scratch"), ContainerPath: "/scratch"},
		{HostPath: filepath.Join(host, "app1"), ContainerPath: "/data", ReadOnly: true},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("mounts: got %+v, want %+v", got, want)
	}
	if err := os.Symlink("/etc", filepath.Join(host, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"../x", "/etc", "escape"} {
		c.VolumeMounts[1].SubPath = sub
		if _, err := v.mounts(c, nil); err == nil {
			t.Errorf("subPath %q: got no error, want it refused", sub)
		}
	}
}

func TestHostPathTypes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		typ  corev1.HostPathType
		ok   bool
	}{
		{dir, corev1.HostPathDirectory, true}, {file, corev1.HostPathDirectory, false},
		{file, corev1.HostPathFile, true}, {dir, corev1.HostPathFile, false},
		{filepath.Join(dir, "new/dir"), corev1.HostPathDirectoryOrCreate, true},
		{filepath.Join(dir, "new/file"), corev1.HostPathFileOrCreate, true},
		{filepath.Join(dir, "missing"), corev1.HostPathDirectory, false},
		{dir, corev1.HostPathSocket, false}, {"relative", corev1.HostPathUnset, false},
		{filepath.Join(dir, "unset/made"), corev1.HostPathUnset, true}, {file, corev1.HostPathUnset, true},
		{"/dev/null", corev1.HostPathCharDev, true}, {"/dev/null", corev1.HostPathBlockDev, false},
	}
	for _, c := range cases {
		err := checkHostPath(&corev1.HostPathVolumeSource{Path: c.path, Type: &c.typ})
		if (err == nil) != c.ok {
			t.Errorf("%s as %q: got error %v, want ok=%v", c.path, c.typ, err, c.ok)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "unset/made")); err != nil || !fi.IsDir() {
		t.Errorf("hostPath with no type: got %v, want the missing path made a directory (as containerd's CRI does)", err)
	}
}

func TestResourcesToLimits(t *testing.T) {
	var s runtime.ContainerSpec
	applyResources(&s, corev1.ResourceRequirements{
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
	})
	if s.CPUQuota != 150000 || s.CPUPeriod != 100000 || s.MemoryLimit != 64<<20 || s.CPUShares != 256 {
		t.Errorf("got quota %d period %d memory %d shares %d, want 150000 100000 %d 256", s.CPUQuota, s.CPUPeriod, s.MemoryLimit, s.CPUShares, 64<<20)
	}
}

func TestEmptyDirMemoryAndCleanup(t *testing.T) {
	dir := t.TempDir()
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Volumes = []corev1.Volume{{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory}}}}
	v := newVolumes(dir, "uid-1", (&fakeStore{}).lookup)
	if err := v.prepare(context.Background(), pod); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	mem := filepath.Join(podDir(dir, "uid-1"), "volumes", "mem")
	if fi, err := os.Stat(mem); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o777 {
		t.Fatalf("emptyDir: got %v, %v; want a 0777 directory", fi, err)
	}
	if v.tmpfs[mem] != isMountPoint(t, mem) {
		t.Errorf("tmpfs: manager thinks mounted=%v, /proc says %v", v.tmpfs[mem], isMountPoint(t, mem))
	}
	if err := v.cleanup(); err != nil {
		t.Fatalf("cleanup: %v", err)
	}
	if _, err := os.Stat(podDir(dir, "uid-1")); !os.IsNotExist(err) || isMountPoint(t, mem) {
		t.Errorf("after cleanup: got stat error %v, want the pod dir gone and unmounted", err)
	}
}

func isMountPoint(t testing.TB, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

func TestMissingConfigMapVolumeHoldsStartsOnly(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}}
	h := newHarness(t, pod)
	s := h.step()
	if c := ctrStatus(t, s, "app"); waitingReason(c) != "ContainerCreating" || !strings.Contains(c.State.Waiting.Message, "cfg") {
		t.Fatalf("missing ConfigMap volume: got %+v, want ContainerCreating naming it", c.State)
	}
	h.store.set(KindConfigMap, "default", "cfg", map[string]string{"k": "v"})
	if c := ctrStatus(t, h.step(), "app"); c.State.Running == nil {
		t.Fatalf("ConfigMap created: got %+v, want running", c.State)
	}
	h.store.mu.Lock()
	delete(h.store.objs, "ConfigMap/default/cfg")
	h.store.mu.Unlock()
	h.rt.exit("app", 1, false)
	h.step()
	if c := ctrStatus(t, h.step(), "app"); c.LastTerminationState.Terminated == nil || c.State.Running != nil {
		t.Fatalf("ConfigMap deleted, container exited: got %+v, want the exit seen and no new start", c)
	}
}
