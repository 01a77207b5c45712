package publish

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/mqtt"
)

// walkResult is what a catch-up learnt from the history (from, upto] about
// one node's view.
type walkResult struct {
	node string
	gen  uint64
	// pods that were on the node at some point, with their latest value on
	// the node (nil once they left it).
	pods map[mqtt.ObjectRef]*datastore.KeyValue
	// refs are the ConfigMaps and Secrets any of those pod versions named.
	refs map[mqtt.ObjectRef]bool
	// touched are the ConfigMaps and Secrets written in the range, and
	// the Nodes whose routes changed.
	touched map[mqtt.ObjectRef]bool
	// allNodes: the node started or stopped routing in the range, so
	// every Node, Service and EndpointSlice is touched (nodes.go).
	allNodes bool
	relist   bool // the range is compacted
	err      error
	// podWrites, policyWrites: a pod, or a NetworkPolicy or Namespace, was
	// written in the range (the policy view's catch-up, netpol_index.go).
	podWrites, policyWrites bool
	// sliceSvcs are the Services of the EndpointSlices written in the
	// range, as their values said (svc_index.go: touchRelated).
	sliceSvcs map[mqtt.ObjectRef]string
}

// walk reads the history (from, upto] of the whole store with the
// watch-and-resume part of listwatch (a cut-off watch resumes where it
// stopped; a compacted range means the node relists). It watches "/"
// rather than the registry alone: revisions are consecutive, so the event
// at upto is always delivered and the walk knows where to stop even when
// upto is not an API write.
func (p *Publisher) walk(ctx context.Context, node string, from, upto int64) walkResult {
	res := walkResult{pods: map[mqtt.ObjectRef]*datastore.KeyValue{},
		refs: map[mqtt.ObjectRef]bool{}, touched: map[mqtt.ObjectRef]bool{}}
	w := listwatch.NewWatch(p.cfg.Store, "/", from, listwatch.WatchConfig{Logger: p.log})
	defer w.Close()
	for w.Last() < upto {
		ch, err := w.Chan(ctx)
		if err != nil {
			res.relist = errors.Is(err, datastore.ErrCompacted)
			if !res.relist {
				res.err = fmt.Errorf("read history after %d: %w", w.Last(), err)
			}
			return res
		}
		var batch []datastore.Event
		var ok bool
		select {
		case batch, ok = <-ch:
		case <-ctx.Done():
			res.err = ctx.Err()
			return res
		}
		w.Recv(batch, ok)
		if done, err := res.recordUpTo(node, batch, upto); done || err != nil {
			res.err = err
			return res
		}
	}
	return res
}

// recordUpTo records the events of batch up to upto, and says whether upto
// was reached.
func (res *walkResult) recordUpTo(node string, batch []datastore.Event, upto int64) (bool, error) {
	for i := range batch {
		ev := &batch[i]
		if ev.Revision > upto {
			return true, nil
		}
		if err := res.record(node, ev); err != nil {
			return false, err
		}
	}
	return len(batch) > 0 && batch[len(batch)-1].Revision >= upto, nil
}

// record notes what one historical event means for node.
func (res *walkResult) record(node string, ev *datastore.Event) error {
	ref, ok := parseKey(ev.KV.Key)
	switch {
	case !ok:
	case isReferenced(ref.Resource) || ref.Resource == mqtt.ResourceVolumes:
		res.touched[ref] = true
	case ref.Resource == mqtt.ResourcePods:
		res.podWrites = true
		return res.recordPod(node, ref, ev)
	case ref.Resource == mqtt.ResourceNodes:
		return res.recordNode(node, ref, ev)
	case isServiceInput(ref.Resource):
		return res.recordService(ref, ev)
	case isPolicyInput(ref.Resource):
		res.policyWrites = true
	}
	return nil
}

// recordPod notes one historical pod event: where the pod was before and
// after, what those versions referenced, and its latest value on the node.
// A change to the status alone is no change to the node's view
// (statusonly.go): it only refreshes the value of a pod already touched.
func (res *walkResult) recordPod(node string, ref mqtt.ObjectRef, ev *datastore.Event) error {
	prev, cur := ev.PrevKV, ev.KV
	if ev.Type == datastore.EventDelete {
		prev, cur = cmp.Or(prev, ev.KV), nil
	}
	wasOn, err := onNode(node, prev)
	if err != nil {
		return err
	}
	isOn, err := onNode(node, cur)
	if err != nil || !wasOn && !isOn {
		return err
	}
	if wasOn && isOn && statusOnly(prev, cur) {
		if res.pods[ref] != nil {
			res.pods[ref] = cur
		}
		return nil
	}
	if wasOn {
		if err := res.noteRefs(ref, prev); err != nil {
			return err
		}
	}
	if !isOn {
		res.pods[ref] = nil
		return nil
	}
	res.pods[ref] = cur
	return res.noteRefs(ref, cur)
}

// onNode reports whether the pod version kv (nil: none) is bound to node.
func onNode(node string, kv *datastore.KeyValue) (bool, error) {
	if kv == nil {
		return false, nil
	}
	on, err := podNode(kv)
	return err == nil && on == node, err
}

// noteRefs notes what the pod version kv references.
func (res *walkResult) noteRefs(ref mqtt.ObjectRef, kv *datastore.KeyValue) error {
	pod, err := decodePod(kv)
	if err != nil {
		return err
	}
	pod.Namespace = ref.Namespace
	for _, r := range mqtt.PodReferences(pod) {
		res.refs[r] = true
	}
	return nil
}
