package publish

import (
	"encoding/json"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// encoder turns stored values into object JSON with resourceVersion set,
// once per value for all the messages one event produces.
type encoder struct {
	objs map[*datastore.KeyValue][]byte
	// each change's JSON, shared by every node it goes to: the first
	// change's in first, the others' in changes (most events make one)
	first     change
	firstJSON [][]byte
	changes   map[change][][]byte
}

// changeJSON is c encoded for EncodeStoredEventParts, once per event.
func (e *encoder) changeJSON(c change) ([][]byte, error) {
	if e.firstJSON != nil && e.first == c {
		return e.firstJSON, nil
	}
	if b, ok := e.changes[c]; ok {
		return b, nil
	}
	b, err := e.encodeChange(c)
	if err != nil {
		return nil, err
	}
	switch {
	case e.firstJSON == nil:
		e.first, e.firstJSON = c, b
	case e.changes == nil:
		e.changes = map[change][][]byte{c: b}
	default:
		e.changes[c] = b
	}
	return b, nil
}

// encodeChange is c's JSON in parts. A stored value whose resourceVersion
// can be spliced in, and that no watch message made into an object
// already, is not copied here: its parts are the value's own bytes around
// the resourceVersion, copied once, into the Event.
func (e *encoder) encodeChange(c change) ([][]byte, error) {
	mc := mqtt.Change{Type: c.typ, ObjectRef: c.ref}
	if c.kv != nil && e.objs[c.kv] == nil {
		if at, field, ok := splicePoint(c.kv.Value, c.kv.ModRevision); ok {
			mc.Object = c.kv.Value
			return mqtt.EncodeStoredChangeParts(&mc, at, field)
		}
	}
	mc, err := e.change(c)
	if err != nil {
		return nil, err
	}
	return mqtt.EncodeStoredChangeParts(&mc, 0, nil)
}

func (e *encoder) object(kv *datastore.KeyValue) ([]byte, error) {
	if b, ok := e.objs[kv]; ok {
		return b, nil
	}
	b, err := withResourceVersion(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	if e.objs == nil {
		e.objs = map[*datastore.KeyValue][]byte{}
	}
	e.objs[kv] = b
	return b, nil
}

func (e *encoder) change(c change) (mqtt.Change, error) {
	mc := mqtt.Change{Type: c.typ, ObjectRef: c.ref}
	if c.kv == nil {
		return mc, nil
	}
	obj, err := e.object(c.kv)
	if err != nil {
		return mqtt.Change{}, err
	}
	mc.Object = json.RawMessage(obj)
	return mc, nil
}

// watchMsg is one encoded watch-topic message.
type watchMsg struct {
	topic   string
	payload []byte
}

// watchSender publishes watch-topic messages from a bounded queue, so a
// slow broker never holds up the dispatcher; what does not fit is dropped
// and counted (watchers are told nothing else: the watch topics promise
// no gap detection).
type watchSender struct {
	p       *Publisher
	queue   chan watchMsg
	dropped int64
}

func newWatchSender(p *Publisher) *watchSender {
	return &watchSender{p: p, queue: make(chan watchMsg, p.cfg.WatchQueue)}
}

// send queues the watch message of ev (an event on ref); dispatcher only.
func (w *watchSender) send(ref mqtt.ObjectRef, ev *datastore.Event, enc *encoder) {
	topic := mqtt.WatchTopic(ref.Resource, ref.Namespace, ref.Name)
	if c, ok := w.p.cfg.Bus.(mqtt.SubscriberChecker); ok && !c.HasSubscribers(topic) {
		return // nobody watches it: not encoded, not published
	}
	obj, err := enc.object(ev.KV)
	if err != nil {
		w.p.log.Error("cannot encode watch event", "key", ev.KV.Key, "rev", ev.Revision, "err", err)
		return
	}
	we := mqtt.WatchEvent{Type: changeType(ev.Type), ObjectRef: ref, Rev: ev.Revision, Object: obj}
	payload, err := we.EncodeStored() // obj is a stored object, spliced: no need to parse it again
	if err != nil {
		w.p.log.Error("cannot encode watch event", "key", ev.KV.Key, "rev", ev.Revision, "err", err)
		return
	}
	select {
	case w.queue <- watchMsg{topic: topic, payload: payload}:
	default:
		w.dropped++
		if w.dropped&(w.dropped-1) == 0 { // log at 1, 2, 4, 8, ... drops
			w.p.log.Warn("watch topic queue full; dropping watch events", "dropped", w.dropped, "rev", ev.Revision)
		}
	}
}

func (w *watchSender) run() {
	defer w.p.wg.Done()
	for {
		select {
		case <-w.p.ctx.Done():
			return
		case m := <-w.queue:
			if err := w.p.publishOnce(m.topic, m.payload); err != nil {
				w.p.log.Debug("publish watch event failed", "topic", m.topic, "err", err)
			}
		}
	}
}
