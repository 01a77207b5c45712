package publish

import (
	"strings"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// touchRelated widens a catch-up's touched Services and slices to their
// Services' summaries and every slice of those Services: a write to one
// slice may move all of them into or out of the node's view. A touched
// slice the index no longer knows (deleted) may have been any Service's:
// then every summary and slice is touched.
func (x *index) touchRelated(touched map[mqtt.ObjectRef]bool, written map[mqtt.ObjectRef]string) {
	keys := map[string]bool{}
	for r := range touched {
		switch r.Resource {
		case mqtt.ResourceServices:
			keys[r.Namespace+"/"+r.Name] = true
		case mqtt.ResourceEndpointSlices:
			key, ok := x.relay.sliceSvc[r]
			if !ok {
				key, ok = written[r]
			}
			if !ok {
				x.touchAllServices(touched)
				return
			}
			keys[key] = true
		}
	}
	for key := range keys {
		ns, name, _ := strings.Cut(key, "/")
		touched[mqtt.ObjectRef{Resource: mqtt.ResourceServiceSummaries, Namespace: ns, Name: name}] = true
		for _, r := range x.sliceRefs(key) {
			touched[r] = true
		}
	}
}

func (x *index) touchAllServices(touched map[mqtt.ObjectRef]bool) {
	for r := range x.svcs {
		touched[r] = true
	}
	for _, e := range x.sums {
		touched[e.ref] = true
	}
}

// noteSliceService remembers which Service a written slice belonged to,
// so a catch-up knows it after the slice is gone.
func (res *walkResult) noteSliceService(ref mqtt.ObjectRef, ev *datastore.Event) {
	if ref.Resource != mqtt.ResourceEndpointSlices {
		return
	}
	for _, kv := range []*datastore.KeyValue{ev.PrevKV, ev.KV} {
		if kv == nil || len(kv.Value) == 0 {
			continue
		}
		if key, _, err := countSlice(kv.Value); err == nil && key != "" {
			if res.sliceSvcs == nil {
				res.sliceSvcs = map[mqtt.ObjectRef]string{}
			}
			res.sliceSvcs[ref] = key
			return
		}
	}
}
