package servicealloc

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
)

var (
	errFull      = errors.New("range is full")
	errAllocated = errors.New("provided IP is already allocated")
)

// next takes a free offset of p; a full pool is listed again once, in
// case Services were deleted since.
func (t *txn) next(ctx context.Context, p *pool) (int, error) {
	for attempt := 0; attempt < 2; attempt++ {
		t.a.mu.Lock()
		off, ok := p.next(t.h)
		t.a.mu.Unlock()
		if ok {
			t.fresh = append(t.fresh, taken{p, off})
			return off, nil
		}
		if attempt == 0 {
			if err := t.a.resync(ctx); err != nil {
				return 0, err
			}
		}
	}
	return 0, errFull
}

// reserve takes off in p for the Service. When another Service holds it,
// that one is read back: if it is gone, or no longer holds off (holds
// says), off is free again.
func (t *txn) reserve(ctx context.Context, p *pool, off int, holds func(*corev1.Service) bool) error {
	for attempt := 0; attempt < 2; attempt++ {
		t.a.mu.Lock()
		fresh, cur, ok := p.reserve(off, t.h)
		t.a.mu.Unlock()
		if ok {
			if fresh {
				t.fresh = append(t.fresh, taken{p, off})
			}
			return nil
		}
		if cur.pending || attempt == 1 || t.a.stillHolds(ctx, cur, holds) {
			break
		}
		t.a.mu.Lock()
		p.free(off, cur.uid)
		t.a.mu.Unlock()
	}
	if p == t.a.nodes {
		return errors.New("provided port is already allocated")
	}
	return errAllocated
}

// stillHolds reads h's Service back; an error other than NotFound counts
// as holding, so that nothing is handed out twice.
func (a *Allocator) stillHolds(ctx context.Context, h holder, holds func(*corev1.Service) bool) bool {
	obj, err := a.reg.Get(ctx, api.ServiceResource, h.namespace, h.name)
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		return true
	}
	s := obj.(*corev1.Service)
	return s.UID == h.uid && holds(s)
}

func holdsIP(ip string) func(*corev1.Service) bool {
	return func(s *corev1.Service) bool { return s.Spec.ClusterIP == ip }
}

func holdsPort(port int32) func(*corev1.Service) bool {
	return func(s *corev1.Service) bool {
		if s.Spec.HealthCheckNodePort == port {
			return true
		}
		for _, p := range s.Spec.Ports {
			if p.NodePort == port {
				return true
			}
		}
		return false
	}
}

// undo gives back what this write took.
func (t *txn) undo() {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	for _, f := range t.fresh {
		f.p.free(f.off, t.h.uid)
	}
	t.fresh = nil
}

// finish ends the write: stored, what was taken is kept and what old held
// and the Service no longer does is given back; otherwise undo.
func (t *txn) finish(stored bool, old *corev1.Service) {
	if !stored {
		t.undo()
		return
	}
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	t.a.commits++
	for _, f := range t.fresh {
		f.p.commit(f.off, t.h.uid, t.a.commits)
	}
	if old == nil {
		return
	}
	if off, ok := t.a.offset(old.Spec.ClusterIP); ok && old.Spec.ClusterIP != t.svc.Spec.ClusterIP {
		t.a.ips.free(off, t.h.uid)
	}
	for _, n := range nodePortsOf(old) {
		if !holdsPort(n)(t.svc) {
			t.a.nodes.free(int(n), t.h.uid)
		}
	}
}

// nodePortsOf lists the node ports s holds, its health check port too.
func nodePortsOf(s *corev1.Service) []int32 {
	var out []int32
	for _, p := range s.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, p.NodePort)
		}
	}
	if s.Spec.HealthCheckNodePort != 0 {
		out = append(out, s.Spec.HealthCheckNodePort)
	}
	return out
}
