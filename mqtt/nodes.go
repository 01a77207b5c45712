package mqtt

import (
	"encoding/json"
	"fmt"
	"net"
	"path"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// ResourceNodes: every node's desired stream carries every Node, reduced to
// what pod routes need (RouteNode), so each agent can route to the other
// nodes' pods, also after a restart without the server.
const ResourceNodes = "nodes"

// Node annotations an agent sets on its own Node through its heartbeat
// (Heartbeat.Annotations): what other nodes need to reach its pods.
const (
	// AnnotationVXLANMAC is the MAC of the node's vxlan device.
	AnnotationVXLANMAC = "bramble.io/vxlan-mac"
	// AnnotationNodeIP is the address other nodes send its pods' traffic
	// to (the VXLAN tunnel end, or the host-gw next hop).
	AnnotationNodeIP = "bramble.io/node-ip"
)

// AnnotationNetworkBackend is the server's --network-backend, which node
// IPAM writes on every Node (agents without the flag follow it); routing
// agents get it with the Node.
const AnnotationNetworkBackend = "bramble.io/network-backend"

// AnnotationClusterCIDR is the server's --cluster-cidr, written like
// AnnotationNetworkBackend: what a routing agent masquerades by.
const AnnotationClusterCIDR = "bramble.io/cluster-cidr"

// serverAnnotations are the node IPAM's annotations routing agents get.
var serverAnnotations = []string{AnnotationNetworkBackend, AnnotationClusterCIDR}

// routeAnnotations are the annotations a RouteNode keeps.
var routeAnnotations = append([]string{AnnotationVXLANMAC, AnnotationNodeIP}, serverAnnotations...)

// IsRouteAnnotation reports whether RouteNode keeps annotation key.
func IsRouteAnnotation(key string) bool {
	for _, k := range routeAnnotations {
		if k == key {
			return true
		}
	}
	return false
}

// AgentAnnotations are the annotations a heartbeat may set; the server
// removes those a heartbeat leaves out.
var AgentAnnotations = []string{AnnotationVXLANMAC, AnnotationNodeIP,
	api.AnnotationLocalStoragePath, api.AnnotationLocalStorageCapacity}

func checkAgentAnnotations(a map[string]string) error {
	for k, v := range a {
		var err error
		switch k {
		case AnnotationVXLANMAC:
			_, err = net.ParseMAC(v)
		case AnnotationNodeIP:
			if net.ParseIP(v) == nil {
				err = fmt.Errorf("got %q, want an IP address", v)
			}
		case api.AnnotationLocalStoragePath:
			if !path.IsAbs(v) || len(v) > 4096 {
				err = fmt.Errorf("got %q, want an absolute path", v)
			}
		case api.AnnotationLocalStorageCapacity:
			if _, perr := strconv.ParseUint(v, 10, 63); perr != nil {
				err = fmt.Errorf("got %q, want a number of bytes", v)
			}
		default:
			err = fmt.Errorf("not an annotation an agent sets (want one of %q)", AgentAnnotations)
		}
		if err != nil {
			return fmt.Errorf("annotations[%q]: %w", k, err)
		}
	}
	return nil
}

// RouteNode is the part of a Node other nodes route by: name and UID, the
// agent annotations, the network backend and cluster CIDR, spec.podCIDR(s) and status.addresses. Two Nodes with
// equal RouteNodes need no message to any agent: heartbeat-driven status
// churn (conditions, images, capacity) never leaves the server.
func RouteNode(n *corev1.Node) *corev1.Node {
	out := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID},
		Spec:       corev1.NodeSpec{PodCIDR: n.Spec.PodCIDR, PodCIDRs: n.Spec.PodCIDRs},
		Status:     corev1.NodeStatus{Addresses: n.Status.Addresses},
	}
	for _, k := range routeAnnotations {
		if v, ok := n.Annotations[k]; ok {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	return out
}

// routeNodeJSON is RouteNode's wire form: a Node in the Kubernetes shape
// without the empty fields encoding a corev1.Node always writes (an empty
// nodeInfo, daemonEndpoints), so a Node costs every agent ~200 bytes.
type routeNodeJSON struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		UID         string            `json:"uid,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec struct {
		PodCIDR  string   `json:"podCIDR,omitempty"`
		PodCIDRs []string `json:"podCIDRs,omitempty"`
	} `json:"spec"`
	Status struct {
		Addresses []corev1.NodeAddress `json:"addresses,omitempty"`
	} `json:"status"`
}

// EncodeRouteNode is the JSON of RouteNode(n), which decodes as a Node.
func EncodeRouteNode(n *corev1.Node) ([]byte, error) {
	r := RouteNode(n)
	var out routeNodeJSON
	out.APIVersion, out.Kind = r.APIVersion, r.Kind
	out.Metadata.Name, out.Metadata.UID, out.Metadata.Annotations = r.Name, string(r.UID), r.Annotations
	out.Spec.PodCIDR, out.Spec.PodCIDRs = r.Spec.PodCIDR, r.Spec.PodCIDRs
	out.Status.Addresses = r.Status.Addresses
	return json.Marshal(&out)
}
