package pods

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A log shipper's pod (busybox tail -F through a hostPath of the log root,
// as a fluent-bit or promtail DaemonSet mounts /var/log) sees another
// pod's lines with the CRI prefix; the logs go with their pod.
func TestRealLogFilesWhereShippersLook(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, dataDir := realManager(t, rt, &fakeStore{}, log)
	root := filepath.Join(dataDir, "log")
	app := busyboxPod("app-1", `i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.2; done`)
	m.Sync([]*corev1.Pod{app})
	link := m.logs.link("default", "app-1", "main", ContainerID(app.UID, "main", 0))
	if want := regexp.MustCompile(`/app-1_default_main-[0-9a-f]{64}\.log$`); !want.MatchString(link) {
		t.Fatalf("link name: got %s, want <pod>_<ns>_<container>-<64 hex>.log", link)
	}
	waitLog(t, link, "stdout F line 1")
	if target, err := os.Readlink(link); err != nil || target != filepath.Join(root, "pods/default_app-1_app-1/main/0.log") {
		t.Fatalf("link target: got %q (%v), want the pod log file", target, err)
	}

	shipper := busyboxPod("shipper-1", "tail -n 1 -F "+filepath.Join(root, "containers")+"/app-1_*.log")
	dirType := corev1.HostPathDirectory
	shipper.Spec.Volumes = []corev1.Volume{{Name: "varlog", VolumeSource: corev1.VolumeSource{
		HostPath: &corev1.HostPathVolumeSource{Path: root, Type: &dirType}}}}
	shipper.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "varlog", MountPath: root, ReadOnly: true}}
	m.Sync([]*corev1.Pod{app, shipper})
	shipped := m.logs.attempt("default", "shipper-1", "shipper-1", "main", 0)
	waitMatch(t, shipped, regexp.MustCompile(`stdout F \d{4}-\d\d-\d\dT\S+ stdout F line \d+\n`))

	m.Sync([]*corev1.Pod{shipper})
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, dirErr := os.Stat(filepath.Join(root, "pods/default_app-1_app-1"))
		_, linkErr := os.Lstat(link)
		if os.IsNotExist(dirErr) && os.IsNotExist(linkErr) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the pod went: got pod log dir %v, link %v; want both gone", dirErr, linkErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(shipped); err != nil {
		t.Errorf("the other pod's log: got %v, want it kept", err)
	}
}

func waitMatch(t testing.TB, path string, want *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if want.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %s: got %q, want a match of %s", path, b, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
