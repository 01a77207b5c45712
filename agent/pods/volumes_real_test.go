package pods

import (
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// volumesScript prints, from inside the container, what each volume and
// downward value looks like, then keeps printing the mounted ConfigMap key
// so an update shows.
const volumesScript = `
echo "env mem=$MEM_MI cpu=$CPU_M tier=$TIER"
echo "proj greeting=$(cat /proj/cfg/greeting) mode=$(stat -L -c %a /proj/cfg/greeting)"
echo "proj token=$(cat /proj/token) mode=$(stat -L -c %a /proj/token)"
echo "proj name=$(cat /proj/name) cpu=$(cat /proj/cpu)"
echo "down labels=$(cat /down/labels | tr '\n' ',') mode=$(stat -L -c %a /down/labels)"
echo "opt entries=$(ls /opt-cm | wc -l) write=$(touch /opt-cm/x 2>/dev/null && echo yes || echo refused)"
echo "host made=$(test -d /made && echo dir)"
echo "mem fs=$(awk '$2=="/mem"{print $3}' /proc/mounts)"
echo hello > /sub/f; echo "subexpr host=$(cat /scratch/vols-1/f)"
while true; do echo "live $(cat /proj/cfg/greeting)"; sleep 0.3; done`

func volumesPod(hostDir string) *corev1.Pod {
	pod := busyboxPod("vols-1", volumesScript)
	pod.Labels = map[string]string{"tier": "edge", "app": "vols"}
	mode, secretMode := int32(0o400), int32(0o440)
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"},
				Items: []corev1.KeyToPath{{Key: "greeting", Path: "cfg/greeting", Mode: &mode}}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
				{Path: "cpu", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "main", Resource: "limits.cpu", Divisor: resource.MustParse("1m")}},
			}}},
		}, DefaultMode: &secretMode}}},
		{Name: "down", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
		{Name: "opt-cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}, Optional: ptrTo(true)}}},
		{Name: "made", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: filepath.Join(hostDir, "made/by/agent")}}},
		{Name: "mem", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	c := &pod.Spec.Containers[0]
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("48Mi")}
	c.Env = []corev1.EnvVar{
		{Name: "MEM_MI", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
		{Name: "CPU_M", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu", Divisor: resource.MustParse("1m")}}},
		{Name: "TIER", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['tier']"}}},
		{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
	}
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "proj", MountPath: "/proj", ReadOnly: true}, {Name: "down", MountPath: "/down", ReadOnly: true},
		{Name: "opt-cm", MountPath: "/opt-cm"}, {Name: "made", MountPath: "/made"}, {Name: "mem", MountPath: "/mem"},
		{Name: "scratch", MountPath: "/scratch"}, {Name: "scratch", MountPath: "/sub", SubPathExpr: "$(POD)"},
	}
	return pod
}

func TestRealVolumesFromInside(t *testing.T) {
	rt, _, _ := realRuntime(t)
	store, log := &fakeStore{}, &statusLog{}
	store.set(KindConfigMap, "default", "cfg", map[string]string{"greeting": "hello"})
	store.set(KindSecret, "default", "sec", map[string]string{"token": "s3cret"})
	m, dataDir := realManager(t, rt, store, log)
	pod := volumesPod(dataDir)
	t.Cleanup(func() { // a failed test leaves no tmpfs behind
		syscall.Unmount(filepath.Join(podDir(dataDir, pod.UID), "volumes", "mem"), syscall.MNT_DETACH)
	})
	m.Sync([]*corev1.Pod{pod})
	out := m.logs.attempt("default", "vols-1", "vols-1", "main", 0)
	for _, want := range []string{
		`env mem=48 cpu=500 tier=edge`,
		`proj greeting=hello mode=400`,
		`proj token=s3cret mode=440`,
		`proj name=vols-1 cpu=500`,
		`down labels=app="vols",tier="edge" mode=644`,
		`opt entries=0 write=refused`,
		`host made=dir`,
		`mem fs=tmpfs`,
		`subexpr host=hello`,
		`live hello`,
	} {
		waitMatch(t, out, regexp.MustCompile(`stdout F `+regexp.QuoteMeta(want)+`\n`))
	}
	store.set(KindConfigMap, "default", "cfg", map[string]string{"greeting": "updated"})
	waitMatch(t, out, regexp.MustCompile(`stdout F live updated\n`))

	m.Delete(pod.UID) // unmounts the tmpfs before the temp dir goes
	deadline := time.Now().Add(20 * time.Second)
	for _, err := os.Stat(podDir(dataDir, pod.UID)); !os.IsNotExist(err); _, err = os.Stat(podDir(dataDir, pod.UID)) {
		if time.Now().After(deadline) {
			t.Fatalf("after Delete: pod dir stat %v, want it gone", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func ptrTo[T any](v T) *T { return &v }
