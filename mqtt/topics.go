// Package mqtt is bramble's MQTT wire contract, shared by the server and
// the nodes: the topics, the payloads on them (desired-state events and
// acks, heartbeats and pod status, log RPCs) with their encoders and the
// decoders that check what arrives, the references a pod makes to
// ConfigMaps and Secrets, and the Bus the server publishes through. It
// links no broker: the server's side is mqtt/broker (the embedded
// mochi-mqtt broker, or a connection to mosquitto), the node's side is
// mqtt/client. MQTT 3.1.1 throughout.
package mqtt

import "strings"

// Prefix starts every bramble topic.
const Prefix = "bramble/v1"

// Topics under one node's subtree. A node identity may publish and
// subscribe only below NodeSubtree(node).
func NodeSubtree(node string) string { return Prefix + "/nodes/" + node + "/" }

// IsNodeTopic reports whether topic is NodeSubtree(node) + leaf, without
// making that string: the server checks the topic of every message a
// node sends.
func IsNodeTopic(topic, node, leaf string) bool {
	rest, ok := strings.CutPrefix(topic, Prefix+"/nodes/")
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, node)
	return ok && len(rest) == 1+len(leaf) && rest[0] == '/' && rest[1:] == leaf
}

// DesiredTopic carries server -> agent events for the node's pods and the
// ConfigMaps and Secrets they reference (QoS 1).
func DesiredTopic(node string) string { return NodeSubtree(node) + "desired" }

// StatusTopic carries agent -> server heartbeats with hardware figures (QoS 0).
func StatusTopic(node string) string { return NodeSubtree(node) + "status" }

// PodStatusTopic carries agent -> server pod status (QoS 1).
func PodStatusTopic(node string) string { return NodeSubtree(node) + "pods/status" }

// PresenceTopic holds the retained "online"; the Last Will sets "offline".
func PresenceTopic(node string) string { return NodeSubtree(node) + "presence" }

// AckTopic carries agent -> server the last revision applied.
func AckTopic(node string) string { return NodeSubtree(node) + "ack" }

// RPCRequestTopic carries server -> agent requests (logs, later exec).
func RPCRequestTopic(node string) string { return NodeSubtree(node) + "rpc/req" }

// RPCResponseTopic carries agent -> server the answer to request id.
func RPCResponseTopic(node, id string) string { return NodeSubtree(node) + "rpc/resp/" + id }

// WatchPrefix starts the topics anything authorized may watch; Secrets are
// never published under it.
const WatchPrefix = Prefix + "/watch/"

// WatchTopic is where every API change of one object is published:
// bramble/v1/watch/{resource}/{namespace}/{name}; cluster-scoped objects use
// "_cluster" as namespace.
func WatchTopic(resource, namespace, name string) string {
	if namespace == "" {
		namespace = ClusterScope
	}
	return WatchPrefix + resource + "/" + namespace + "/" + name
}

// ClusterScope stands for the namespace of cluster-scoped objects in topics.
const ClusterScope = "_cluster"

// NodeOfTopic returns the node a topic under bramble/v1/nodes/ belongs to.
func NodeOfTopic(topic string) (string, bool) {
	rest, ok := strings.CutPrefix(topic, Prefix+"/nodes/")
	if !ok {
		return "", false
	}
	node, _, ok := strings.Cut(rest, "/")
	return node, ok && node != ""
}

// EventsTopic carries agent -> server batches of events about the node and
// its pods (QoS 1).
func EventsTopic(node string) string { return NodeSubtree(node) + "events" }
