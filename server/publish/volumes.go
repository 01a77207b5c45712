package publish

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// A PersistentVolume whose node affinity names one node (every local-path
// volume, and local volumes made that way) is in that node's view: its
// agent mounts it for the pods whose claims are bound to it, and removes
// a local-path directory once its volume with reclaimPolicy Delete is
// gone (docs/STORAGE.md). Volumes without such affinity go to no node.

// volumeEntry is a volume's latest stored value and the node it goes to
// ("" for none).
type volumeEntry struct {
	kv   *datastore.KeyValue
	node string
}

func volumeKV(v *volumeEntry) *datastore.KeyValue {
	if v == nil {
		return nil
	}
	return v.kv
}

// volumeNode is the node the stored volume kv belongs to.
func volumeNode(kv *datastore.KeyValue) (string, error) {
	var pv corev1.PersistentVolume
	if err := json.Unmarshal(kv.Value, &pv); err != nil {
		return "", fmt.Errorf("stored persistent volume %s: %w", kv.Key, err)
	}
	return api.LocalPathNode(&pv), nil
}

// applyVolume records a volume change and sends it to its node (and a
// removal to the node it left, should its affinity change).
func (x *index) applyVolume(ref mqtt.ObjectRef, ev *datastore.Event, out *fanout) error {
	old := x.volumes[ref]
	if ev.Type == datastore.EventDelete {
		delete(x.volumes, ref)
		if old != nil && old.node != "" {
			out.add(old.node, change{mqtt.Deleted, ref, ev.KV})
		}
		return nil
	}
	node, err := volumeNode(ev.KV)
	if err != nil {
		return err
	}
	x.volumes[ref] = &volumeEntry{kv: ev.KV, node: node}
	if old != nil && old.node != "" && old.node != node {
		out.add(old.node, change{mqtt.Deleted, ref, ev.KV})
	}
	if node == "" {
		return nil
	}
	typ := mqtt.Modified
	if old == nil || old.node != node {
		typ = mqtt.Added
	}
	out.add(node, change{typ, ref, ev.KV})
	return nil
}

// volumeView lists the volumes in node's view (a relist).
func (x *index) volumeView(node string) []change {
	var out []change
	for ref, v := range x.volumes {
		if v.node == node {
			out = append(out, change{typ: mqtt.Added, ref: ref, kv: v.kv})
		}
	}
	return out
}
