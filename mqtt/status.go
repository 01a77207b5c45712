package mqtt

import (
	"bytes"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// The payloads agents send about themselves (docs/NODE-STATUS.md):
//
//   - Heartbeat, on a node's status topic (QoS 0), every few seconds: the
//     node's figures in the shape of a Kubernetes NodeStatus, and the labels
//     and taints the agent registers its Node with. Every heartbeat is
//     complete: one that is lost costs nothing but a little freshness.
//   - PodStatusReport, on a node's pods/status topic (QoS 1), when pods
//     change: a batch of pod statuses in the Kubernetes shape.
//
// The server keeps the latest heartbeat per node in memory and writes the
// Node only when something a user would see changes.

// Heartbeat is one message on bramble/v1/nodes/{node}/status.
type Heartbeat struct {
	// Node must equal the {node} of the topic.
	Node string `json:"node"`
	// Seq counts the agent's heartbeats from 1; it restarts with the agent.
	Seq uint64 `json:"seq"`
	// IntervalSeconds is how often the agent sends heartbeats. The server
	// never declares a node lost before a few intervals have passed.
	IntervalSeconds int32 `json:"intervalSeconds"`
	// Labels and Taints are what the agent asks its Node to be created
	// with (kubernetes.io/arch, kubernetes.io/os, kubernetes.io/hostname and
	// the operator's --node-label values). Later changes are the
	// operator's (kubectl label, kubectl taint), not the agent's.
	Labels map[string]string `json:"labels,omitempty"`
	Taints []corev1.Taint    `json:"taints,omitempty"`
	// Annotations are the agent's own annotations on its Node
	// (AgentAnnotations: its vxlan MAC and node IP, nodes.go), kept in
	// step with every heartbeat.
	Annotations map[string]string `json:"annotations,omitempty"`
	Status      NodeReport        `json:"status"`
	// Usage is what the node and its containers used over the last
	// interval (usage.go), when the agent could measure it. The server
	// keeps it in memory for the metrics API.
	Usage *Usage `json:"usage,omitempty"`
}

// NodeReport is the part of a Kubernetes NodeStatus an agent knows, with
// the same field names. Times are the server's business: conditions carry
// none here.
type NodeReport struct {
	Capacity    corev1.ResourceList     `json:"capacity"`
	Allocatable corev1.ResourceList     `json:"allocatable"`
	Conditions  []NodeCondition         `json:"conditions"`
	Addresses   []corev1.NodeAddress    `json:"addresses,omitempty"`
	NodeInfo    corev1.NodeSystemInfo   `json:"nodeInfo"`
	Images      []corev1.ContainerImage `json:"images,omitempty"`
	// ImagePlatforms maps an image reference the node holds to the
	// platforms it offers ("linux/arm64", "linux/arm/v7"): the scheduler
	// keeps a pod off nodes its images cannot run on. The server keeps it
	// on the Node as the ImagePlatformsAnnotation.
	ImagePlatforms map[string][]string `json:"imagePlatforms,omitempty"`
	// TemperatureCelsius is the board's temperature when the agent can read
	// it. The server keeps it in memory only: it changes all the time.
	TemperatureCelsius *float64 `json:"temperatureCelsius,omitempty"`
}

// ImagePlatformsAnnotation holds a Node's ImagePlatforms as JSON.
const ImagePlatformsAnnotation = "bramble.io/image-platforms"

// NodeCondition is a Kubernetes NodeCondition without its times.
type NodeCondition struct {
	Type    corev1.NodeConditionType `json:"type"`
	Status  corev1.ConditionStatus   `json:"status"`
	Reason  string                   `json:"reason,omitempty"`
	Message string                   `json:"message,omitempty"`
}

// Condition returns the condition of type t, if reported.
func (r *NodeReport) Condition(t corev1.NodeConditionType) (NodeCondition, bool) {
	for _, c := range r.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return NodeCondition{}, false
}

// PodStatusReport is one message on bramble/v1/nodes/{node}/pods/status:
// the current status of some of the pods bound to the node.
type PodStatusReport struct {
	// Node must equal the {node} of the topic.
	Node string           `json:"node"`
	Pods []PodStatusEntry `json:"pods"`
}

// PodStatusEntry is one pod's status. UID guards against a report about an
// earlier pod of the same name.
type PodStatusEntry struct {
	Namespace string           `json:"namespace"`
	Name      string           `json:"name"`
	UID       string           `json:"uid"`
	Status    corev1.PodStatus `json:"status"`
	// Finished says the node stopped every container of this pod, which
	// its desired copy marks with a deletionTimestamp, and Status is its
	// final status: the server writes it, then deletes the pod (grace 0,
	// this UID), as the kubelet does once a pod has terminated.
	Finished bool `json:"finished,omitempty"`
}

// Encode checks h and returns its JSON payload.
func (h *Heartbeat) Encode() ([]byte, error) {
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("encode heartbeat: %w", err)
	}
	return json.Marshal(h)
}

// Encode checks r and returns its JSON payload.
func (r *PodStatusReport) Encode() ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("encode pod status: %w", err)
	}
	return json.Marshal(r)
}

// DecodeHeartbeat decodes and checks a status-topic payload. Unknown,
// duplicate or differently cased fields are errors, and every error names
// the field that is wrong.
func DecodeHeartbeat(data []byte) (*Heartbeat, error) {
	var h Heartbeat
	if err := decodeStrict(data, MaxHeartbeatBytes, &h); err != nil {
		return nil, fmt.Errorf("decode heartbeat: %w", err)
	}
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("decode heartbeat: %w", err)
	}
	return &h, nil
}

// DecodePodStatus decodes and checks a pods/status-topic payload, by the
// same rules as DecodeHeartbeat. What agents send is read by a decoder of
// its own (status_fast.go); whatever it does not take, the strict decoder
// reads.
func DecodePodStatus(data []byte) (*PodStatusReport, error) {
	r, _, err := DecodePodStatusHashed(data)
	return r, err
}

// DecodePodStatusHashed is DecodePodStatus, with a hash of each pod's
// status as the agent wrote it when it can give one for every pod (nil
// otherwise): equal hashes mean equal statuses; unequal ones may still be
// equal statuses written differently.
func DecodePodStatusHashed(data []byte) (r *PodStatusReport, hashes []uint64, err error) {
	ok := false
	if len(data) <= MaxPodStatusBytes {
		r, hashes, ok = decodePodStatusFast(bytes.TrimSpace(data))
	}
	if !ok {
		r = &PodStatusReport{}
		if err := decodeStrict(data, MaxPodStatusBytes, r); err != nil {
			return nil, nil, fmt.Errorf("decode pod status: %w", err)
		}
	}
	if err := r.check(); err != nil {
		return nil, nil, fmt.Errorf("decode pod status: %w", err)
	}
	return r, hashes, nil
}

var podPhases = map[corev1.PodPhase]bool{
	corev1.PodPending: true, corev1.PodRunning: true, corev1.PodSucceeded: true,
	corev1.PodFailed: true, corev1.PodUnknown: true,
}

func (r *PodStatusReport) check() error {
	if err := checkNodeName(r.Node); err != nil {
		return err
	}
	if len(r.Pods) == 0 || len(r.Pods) > MaxPodStatusBatch {
		return fmt.Errorf("pods: got %d, want 1 to %d", len(r.Pods), MaxPodStatusBatch)
	}
	return checkPods(r.Pods)
}

func (p *PodStatusEntry) podKey() (string, string) { return p.Namespace, p.Name }

func (p *PodStatusEntry) check() error {
	if err := checkPodName("namespace", p.Namespace, p.Name); err != nil {
		return err
	}
	switch {
	case p.UID == "" || len(p.UID) > 128:
		return fmt.Errorf("uid: got %d bytes, want 1 to 128", len(p.UID))
	case !podPhases[p.Status.Phase]:
		return fmt.Errorf("status.phase: got %q, want Pending, Running, Succeeded, Failed or Unknown", p.Status.Phase)
	}
	return nil
}
