package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// PodManager is what the applier drives; *pods.Manager has it.
type PodManager interface {
	Sync(pods []*corev1.Pod)
	Update(pod *corev1.Pod)
	Delete(uid types.UID)
}

var _ PodManager = (*pods.Manager)(nil)

// Applier keeps the local store in step with the node's desired stream and
// hands the pods to the pod manager. Static pods (from the manifests folder)
// are added to every full sync. It implements client.Applier.
type Applier struct {
	store   *Store
	manager PodManager

	mu       sync.Mutex
	static   []*corev1.Pod
	heldBack HeldBackFunc // heldback.go
	onNodes  func()       // network.go: the Nodes in the store changed
	onPolicy func()       // netpolicy.go: what NetworkPolicy reads changed
	// onVolumesGone gets the volumes the store no longer holds
	// (localstorage.go).
	onVolumesGone func([]json.RawMessage)
}

// SetOnVolumesGone sets what is told of volumes that leave the store.
func (a *Applier) SetOnVolumesGone(fn func([]json.RawMessage)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onVolumesGone = fn
}

// noteVolumesGone tells onVolumesGone of the volumes of before that left.
func (a *Applier) noteVolumesGone(before map[mqtt.ObjectRef]json.RawMessage) {
	if gone := goneSince(a.store, before); a.onVolumesGone != nil && len(gone) > 0 {
		a.onVolumesGone(gone)
	}
}

var _ client.BatchApplier = (*Applier)(nil)

// NewApplier returns an applier over store driving manager.
func NewApplier(store *Store, manager PodManager) *Applier {
	return &Applier{store: store, manager: manager}
}

// Apply stores one event's changes and passes its pod changes on.
func (a *Applier) Apply(ctx context.Context, ev mqtt.Event) error {
	return a.ApplyBatch(ctx, []mqtt.Event{ev})
}

// ApplyBatch stores several events with one durable write, then passes
// their pod changes on in order.
func (a *Applier) ApplyBatch(_ context.Context, evs []mqtt.Event) error {
	if len(evs) == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	gone, vols := a.deletedUIDs(evs), volumesIn(a.store)
	if err := a.store.ApplyEvents(evs); err != nil {
		for _, ev := range evs {
			a.noteHeldBack(ev.Changes, err)
		}
		return fmt.Errorf("apply rev %d: %w", evs[len(evs)-1].Rev, err)
	}
	a.noteVolumesGone(vols)
	a.noteNodes(evs)
	a.notePolicy(evs)
	for i, ev := range evs {
		for _, c := range ev.Changes {
			if c.Resource != "pods" {
				continue
			}
			if c.Type == mqtt.Deleted {
				if uid, ok := gone[deletion{i, c.ObjectRef}]; ok {
					a.manager.Delete(uid)
				}
				continue
			}
			pod, err := decodePod(c.Object)
			if err != nil {
				return fmt.Errorf("apply rev %d: %s: %w", ev.Rev, c.ObjectRef, err)
			}
			a.manager.Update(pod)
		}
	}
	return nil
}

// deletion is one pod DELETED change: the index of its event in a batch.
type deletion struct {
	event int
	ref   mqtt.ObjectRef
}

// deletedUIDs finds the UID of each pod a batch deletes, from the version
// an earlier event of the batch gave, else from the store.
func (a *Applier) deletedUIDs(evs []mqtt.Event) map[deletion]types.UID {
	gone := map[deletion]types.UID{}
	latest := map[mqtt.ObjectRef]json.RawMessage{}
	for i, ev := range evs {
		for _, c := range ev.Changes {
			if c.Resource != "pods" {
				continue
			}
			if c.Type != mqtt.Deleted {
				latest[c.ObjectRef] = c.Object
				continue
			}
			old, ok := latest[c.ObjectRef]
			if !ok {
				old, ok = a.store.Get(c.ObjectRef)
			}
			if p, err := decodePod(old); ok && err == nil {
				gone[deletion{i, c.ObjectRef}] = p.UID
			}
			latest[c.ObjectRef] = nil
		}
	}
	return gone
}

// Resync replaces the store with state and syncs the manager to it.
func (a *Applier) Resync(_ context.Context, st client.State) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Volumes missing from a relist are not reclaimed: the list may come
	// from a datastore restored to an earlier snapshot, or from a server
	// that does not send volumes, and a directory left behind is better
	// than data lost. Only a DELETED change removes one (ApplyBatch).
	if err := a.store.Replace(st.Objects, st.Rev); err != nil {
		a.noteHeldBack(st.Objects, err)
		return fmt.Errorf("resync at rev %d: %w", st.Rev, err)
	}
	if a.onNodes != nil {
		a.onNodes()
	}
	if a.onPolicy != nil {
		a.onPolicy()
	}
	return a.syncLocked()
}

// Load syncs the manager to what the store holds: the agent's first step,
// before it connects to anything.
func (a *Applier) Load() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.syncLocked()
}

// SetStatic replaces the static pods and syncs the manager.
func (a *Applier) SetStatic(static []*corev1.Pod) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.static = static
	return a.syncLocked()
}

func (a *Applier) syncLocked() error {
	desired, err := a.storedPods()
	if err != nil {
		return err
	}
	a.manager.Sync(append(desired, a.static...))
	return nil
}

// storedPods decodes the stored pods, in a stable order.
func (a *Applier) storedPods() ([]*corev1.Pod, error) {
	stored := a.store.List("pods")
	out := make([]*corev1.Pod, 0, len(stored))
	for ref, raw := range stored {
		p, err := decodePod(raw)
		if err != nil {
			return nil, fmt.Errorf("local store: %s: %w", ref, err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	return out, nil
}

func decodePod(raw json.RawMessage) (*corev1.Pod, error) {
	var p corev1.Pod
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("decode pod: %w", err)
	}
	if p.UID == "" {
		return nil, fmt.Errorf("decode pod %s/%s: metadata.uid is empty", p.Namespace, p.Name)
	}
	return &p, nil
}

// WantedImages lists the images of every desired pod, static ones included:
// image garbage collection must keep them even while no container of
// theirs exists (a pod in back-off, one not yet started).
func (a *Applier) WantedImages() ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	desired, err := a.storedPods()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range append(desired, a.static...) {
		for _, c := range p.Spec.InitContainers {
			out = append(out, c.Image)
		}
		for _, c := range p.Spec.Containers {
			out = append(out, c.Image)
		}
	}
	return out, nil
}
