package pods

import (
	"os"

	corev1 "k8s.io/api/core/v1"
)

// relinkLogs makes sure the adopted containers (current and previous
// attempts) have their /var/log/containers links: a previous agent may
// have died between start and link, or the links' folder been wiped (a
// tmpfs /var/log after a reboot, a log shipper's cleanup), and shippers
// only look there. logPaths maps container IDs to their log files.
func (w *worker) relinkLogs(pod *corev1.Pod, logPaths map[string]string) {
	for _, st := range w.ctrs {
		for _, id := range []string{st.id, st.prevID} {
			target := logPaths[id]
			if id == "" || target == "" {
				continue
			}
			link := w.m.logs.link(pod.Namespace, pod.Name, st.name, id)
			if got, err := os.Readlink(link); err == nil && got == target {
				continue
			}
			if err := w.m.logs.addLink(link, target); err != nil {
				w.log.Warn("container log link", "container", st.name, "err", err)
			}
		}
	}
}
