package server

import (
	"sync"
	"time"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// monitorUsage serves the metrics API and the HPA controller from the
// node status monitor's latest heartbeats.
type monitorUsage struct {
	m *nodestatus.Monitor

	mu    sync.Mutex
	at    time.Time
	index map[string][2]int64 // namespace/name -> millicores, bytes
}

var (
	_ apiserver.UsageSource  = (*monitorUsage)(nil)
	_ controllers.PodMetrics = (*monitorUsage)(nil)
)

// podMetrics is the controllers' pod usage (nil without a monitor).
func (s *Server) podMetrics() controllers.PodMetrics {
	if s.usage == nil {
		return nil
	}
	return s.usage
}

// NodeUsage implements apiserver.UsageSource.
func (u *monitorUsage) NodeUsage() map[string]apiserver.ReceivedUsage {
	out := map[string]apiserver.ReceivedUsage{}
	u.m.EachUsage(func(node string, at time.Time, usage *mqtt.Usage) {
		out[node] = apiserver.ReceivedUsage{At: at, Usage: usage}
	})
	return out
}

// PodUsage implements controllers.PodMetrics from an index of every pod's
// usage, made again at most once a second.
func (u *monitorUsage) PodUsage(namespace, name string) (int64, int64, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if now := time.Now(); u.index == nil || now.Sub(u.at) > time.Second {
		u.at, u.index = now, map[string][2]int64{}
		u.m.EachUsage(func(_ string, _ time.Time, usage *mqtt.Usage) {
			for _, p := range usage.Pods {
				var cpu, mem uint64
				for _, c := range p.Containers {
					cpu, mem = cpu+c.CPU, mem+c.Memory
				}
				u.index[p.Namespace+"/"+p.Name] = [2]int64{int64(cpu / 1e6), int64(mem)}
			}
		})
	}
	v, ok := u.index[namespace+"/"+name]
	return v[0], v[1], ok
}
