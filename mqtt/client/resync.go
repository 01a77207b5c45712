package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// maxListBytes caps a REST answer the client reads.
const maxListBytes = 64 << 20

// errGone marks a referenced object the API says is not there (404), or
// no longer the node's to read (403: the pod that referenced it moved).
var errGone = errors.New("object gone")

// podList is the part of a PodList the client reads.
type podList struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// fetchState is the relist of a server older than the view endpoint: it
// reads the node's view by REST with the node certificate, its pods
// (fieldSelector spec.nodeName=<node>, the only pod list the node role may
// make), then each ConfigMap and Secret they reference, 1 + N calls.
func (c *Client) fetchState(ctx context.Context) (State, error) {
	var list podList
	q := url.Values{"fieldSelector": {"spec.nodeName=" + c.node}}
	if err := c.get(ctx, "/api/v1/pods?"+q.Encode(), &list); err != nil {
		return State{}, fmt.Errorf("list pods: %w", err)
	}
	rev, err := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)
	if err != nil || rev <= 0 {
		return State{}, fmt.Errorf("list pods: resourceVersion %q is not a positive integer", list.Metadata.ResourceVersion)
	}
	st := State{Rev: rev}
	refs := map[mqtt.ObjectRef]bool{}
	for _, raw := range list.Items {
		var pod corev1.Pod
		if err := json.Unmarshal(raw, &pod); err != nil {
			return State{}, fmt.Errorf("list pods: item: %w", err)
		}
		st.Objects = append(st.Objects, mqtt.Change{Type: mqtt.Added, Object: raw,
			ObjectRef: mqtt.ObjectRef{Resource: mqtt.ResourcePods, Namespace: pod.Namespace, Name: pod.Name}})
		for _, r := range mqtt.PodReferences(&pod) {
			refs[r] = true
		}
	}
	if err := c.fetchReferenced(ctx, refs, &st); err != nil {
		return State{}, err
	}
	return st, nil
}

// fetchReferenced adds the referenced ConfigMaps and Secrets that exist to
// st.
func (c *Client) fetchReferenced(ctx context.Context, refs map[mqtt.ObjectRef]bool, st *State) error {
	for r := range refs {
		var obj json.RawMessage
		err := c.get(ctx, "/api/v1/namespaces/"+r.Namespace+"/"+r.Resource+"/"+r.Name, &obj)
		if errors.Is(err, errGone) {
			continue
		}
		if err != nil {
			return fmt.Errorf("get %s: %w", r, err)
		}
		st.Objects = append(st.Objects, mqtt.Change{Type: mqtt.Added, ObjectRef: r, Object: obj})
	}
	return nil
}

// get reads one JSON document from the API server.
func (c *Client) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.cfg.APIServer, "/")+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListBytes+1))
	switch {
	case err != nil:
		return fmt.Errorf("read answer: %w", err)
	case len(body) > maxListBytes:
		return fmt.Errorf("answer is larger than %d bytes", maxListBytes)
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w: %s", errGone, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("server answered %s: %s", resp.Status, firstLine(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// objectRV reads metadata.resourceVersion of an object (0 when absent).
func objectRV(obj []byte) int64 {
	var m struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &m) != nil {
		return 0
	}
	rv, _ := strconv.ParseInt(m.Metadata.ResourceVersion, 10, 64)
	return rv
}
