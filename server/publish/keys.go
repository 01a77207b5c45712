package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/mqtt"
)

// registryPrefix holds every API object (api.Resource.Prefix).
const registryPrefix = "/registry/"

// byPrefix finds a served resource by the "<group or core>/<plural>/" part
// of its keys.
var byPrefix = func() map[string]*api.Resource {
	m := map[string]*api.Resource{}
	for _, r := range api.All() {
		if !r.StorageVersion() {
			continue // keys under its prefix are its storage version's
		}
		m[strings.TrimPrefix(r.Prefix(""), registryPrefix)] = r
	}
	return m
}()

// parseKey names the object stored under key, or says it is not an API
// object bramble serves.
func parseKey(key string) (mqtt.ObjectRef, bool) {
	rest, ok := strings.CutPrefix(key, registryPrefix)
	if !ok {
		return mqtt.ObjectRef{}, false
	}
	group, rest, _ := strings.Cut(rest, "/")
	plural, rest, _ := strings.Cut(rest, "/")
	res, ok := byPrefix[group+"/"+plural+"/"]
	if !ok || rest == "" {
		return mqtt.ObjectRef{}, false
	}
	ref := mqtt.ObjectRef{Resource: res.Name, Name: rest}
	if res.Namespaced {
		if ref.Namespace, ref.Name, ok = strings.Cut(rest, "/"); !ok {
			return mqtt.ObjectRef{}, false
		}
	}
	return ref, ref.Name != "" && !strings.Contains(ref.Name, "/")
}

// withResourceVersion returns a stored object's JSON with
// metadata.resourceVersion set to rev (the datastore keeps none: the
// revision is the resourceVersion).
func withResourceVersion(value []byte, rev int64) ([]byte, error) {
	if out, ok := spliceResourceVersion(value, rev); ok {
		return out, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(value, &top); err != nil {
		return nil, fmt.Errorf("stored object: %w", err)
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := top["metadata"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("stored object metadata: %w", err)
		}
	}
	meta["resourceVersion"] = json.RawMessage(strconv.Quote(strconv.FormatInt(rev, 10)))
	var err error
	if top["metadata"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}

// metadataOpen is how the metadata object of a stored object begins.
var metadataOpen = []byte(`"metadata":{`)

// spliceResourceVersion writes metadata.resourceVersion into a stored
// object by inserting it where its metadata begins, without decoding
// anything. It applies only when that place is certain: the bytes occur
// once (no nested or repeated metadata), nothing before them opens an
// object or array (so they are a top-level key), and no resourceVersion is
// there yet; ok is false otherwise and the caller decodes instead. A
// string value escapes its quotes, so it cannot hold the bytes.
func spliceResourceVersion(value []byte, rev int64) ([]byte, bool) {
	at, field, ok := splicePoint(value, rev)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(value)+len(field))
	out = append(out, value[:at]...)
	out = append(out, field...)
	return append(out, value[at:]...), true
}

// splicePoint is where spliceResourceVersion inserts and what: the
// spliced object is value[:at] + field + value[at:].
func splicePoint(value []byte, rev int64) (at int, field []byte, ok bool) {
	i := bytes.Index(value, metadataOpen)
	if i < 1 || bytes.Count(value, metadataOpen) != 1 || bytes.ContainsAny(value[1:i], "{[") ||
		bytes.Contains(value, []byte(`"resourceVersion":`)) {
		return 0, nil, false
	}
	at = i + len(metadataOpen)
	field = strconv.AppendInt(append(make([]byte, 0, 48), `"resourceVersion":"`...), rev, 10)
	field = append(field, '"')
	if at < len(value) && value[at] != '}' {
		field = append(field, ',')
	}
	return at, field, true
}

// podPlacement is the part of a stored pod that says where it runs.
type podPlacement struct {
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
}

// podNode returns the node a stored pod is bound to ("" when unbound).
func podNode(kv *datastore.KeyValue) (string, error) {
	var p podPlacement
	if err := json.Unmarshal(kv.Value, &p); err != nil {
		return "", fmt.Errorf("stored pod %s: %w", kv.Key, err)
	}
	return p.Spec.NodeName, nil
}

// decodePodSpec decodes the spec of a stored pod, all a placement reads
// (where it runs, what it references): the metadata (managed fields
// included) and status, as long again, are only scanned past.
func decodePodSpec(kv *datastore.KeyValue) (*corev1.PodSpec, error) {
	var pod struct {
		Spec corev1.PodSpec `json:"spec"`
	}
	if err := json.Unmarshal(kv.Value, &pod); err != nil {
		return nil, fmt.Errorf("stored pod %s: %w", kv.Key, err)
	}
	return &pod.Spec, nil
}

// decodePod decodes a stored pod fully (for its references).
func decodePod(kv *datastore.KeyValue) (*corev1.Pod, error) {
	var pod corev1.Pod
	if err := json.Unmarshal(kv.Value, &pod); err != nil {
		return nil, fmt.Errorf("stored pod %s: %w", kv.Key, err)
	}
	return &pod, nil
}

// changeType maps a datastore event to the change a watcher sees.
func changeType(t datastore.EventType) mqtt.ChangeType {
	switch t {
	case datastore.EventCreate:
		return mqtt.Added
	case datastore.EventDelete:
		return mqtt.Deleted
	}
	return mqtt.Modified
}

// isReferenced reports whether objects of this resource go to nodes whose
// pods reference them.
func isReferenced(resource string) bool {
	return resource == mqtt.ResourceConfigMaps || resource == mqtt.ResourceSecrets || resource == mqtt.ResourceClaims
}

// PodSource hands the publisher pods the process has decoded already, so
// that a committed pod is not decoded once more here (the shared cache
// decodes every pod once per revision for everyone).
type PodSource interface {
	// PodAt returns the pod as of revision rev (read only), or false when
	// the source does not hold that very version: the publisher then
	// decodes the stored value itself.
	PodAt(namespace, name string, rev int64) (*corev1.Pod, bool)
}

// cacheWait bounds how long PodAt waits for the cache to apply a revision
// the publisher has been told of; both follow the same datastore watch, so
// the cache is usually there already or within a batch.
const cacheWait = 20 * time.Millisecond

// cacheLagPause: after a wait that timed out (the cache relisting, or far
// behind), PodAt stops waiting for this long, so a lagging cache costs the
// dispatcher at most one wait per pause.
const cacheLagPause = time.Second

// cachePods is a PodSource over the shared informer cache.
type cachePods struct {
	cache   *informer.Cache
	pods    *informer.Informer
	noWaits time.Time // PodAt does not wait before then
}

// CachePods is a PodSource reading c's pod informer. It is used by the
// dispatcher goroutine only.
func CachePods(c *informer.Cache) PodSource {
	return &cachePods{cache: c, pods: c.Informer(api.MustLookup("", "v1", "pods"))}
}

func (s *cachePods) PodAt(namespace, name string, rev int64) (*corev1.Pod, bool) {
	if s.cache.Revision() < rev && !s.await(rev) {
		return nil, false
	}
	obj, ok := s.pods.Get(namespace, name)
	if !ok || obj.GetResourceVersion() != strconv.FormatInt(rev, 10) {
		return nil, false // changed again (or deleted) since rev: not that version
	}
	pod, ok := obj.(*corev1.Pod)
	return pod, ok
}

// await waits a little for the cache to apply rev.
func (s *cachePods) await(rev int64) bool {
	now := time.Now()
	if now.Before(s.noWaits) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), cacheWait)
	defer cancel()
	if s.cache.AwaitRevision(ctx, rev) != nil {
		s.noWaits = now.Add(cacheLagPause)
		return false
	}
	return true
}

// podRefs are the ConfigMaps, Secrets and claims a pod in namespace references
// (mqtt.PodReferences, without writing the namespace into a shared pod).
func podRefs(spec *corev1.PodSpec, namespace string) []mqtt.ObjectRef {
	refs := api.PodReferences(spec)
	if len(refs) == 0 {
		return nil
	}
	out := make([]mqtt.ObjectRef, len(refs))
	for i, r := range refs {
		out[i] = mqtt.ObjectRef{Resource: r.Resource, Namespace: namespace, Name: r.Name}
	}
	return out
}
