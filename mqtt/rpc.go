package mqtt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The request/response contract on a node's rpc topics (kubectl logs now,
// exec later). The server never dials an agent: it publishes RPCRequests on
// RPCRequestTopic(node) and the agent answers with RPCChunks on
// RPCResponseTopic(node, id), both QoS 1.
//
// Flow control is a credit window. The agent may publish chunk seq only
// while seq < acked+RPCWindow, where acked is the highest "ack" the server
// sent for the stream (it starts at 0). The server acks after writing
// chunks to its HTTP client, so a slow reader slows the agent down and at
// most RPCWindow chunks of RPCMaxChunk bytes per stream sit in the broker
// or in the server's memory. The server's acks double as heartbeats: it
// repeats the latest one every few seconds, and an agent that hears
// nothing for its idle timeout ends the stream (the server or the HTTP
// client went away without a cancel). A following agent sends an empty
// chunk now and then when the log is quiet, so the server can tell a
// quiet log from a dead agent.

// Request kinds.
const (
	RPCKindLogs   = "logs"   // start streaming a container's log
	RPCKindAck    = "ack"    // the server wrote chunks up to Seq: credit and heartbeat
	RPCKindCancel = "cancel" // the server stopped listening: end the stream
	// Interactive streams (rpc_stream.go): the agent opens a tunnel to the
	// server and carries the stream there, not over MQTT.
	RPCKindExec        = "exec"        // run Command in Container
	RPCKindAttach      = "attach"      // attach to Container's own process
	RPCKindPortForward = "portforward" // connect to Port in the pod's network
	// RPCKindMetrics asks for the agent's Prometheus metrics at Path
	// ("/metrics" or "/metrics/cadvisor"), answered like a log that ends.
	RPCKindMetrics = "metrics"
)

// Limits of the contract.
const (
	RPCWindow        = 8         // chunks in flight per stream
	RPCMaxChunk      = 32 << 10  // data bytes per chunk
	RPCMaxRequest    = 4 << 10   // bytes of an encoded RPCRequest
	RPCMaxChunkBytes = 64 << 10  // bytes of an encoded RPCChunk (base64 grows data by 4/3)
	rpcMaxIDLen      = 64        // bytes of an id (it is a topic level)
	rpcMaxNameLen    = 253       // a Kubernetes name
	rpcMaxTail       = 1_000_000 // tailLines
)

// RPCRequest is one message on a node's rpc/req topic.
type RPCRequest struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Seq is the last chunk the server wrote (kind ack).
	Seq int64 `json:"seq,omitempty"`
	// The log to read (kind logs).
	Namespace    string `json:"namespace,omitempty"`
	Pod          string `json:"pod,omitempty"`
	UID          string `json:"uid,omitempty"`
	Container    string `json:"container,omitempty"`
	Follow       bool   `json:"follow,omitempty"`
	Previous     bool   `json:"previous,omitempty"`
	Timestamps   bool   `json:"timestamps,omitempty"`
	TailLines    *int64 `json:"tailLines,omitempty"`
	SinceSeconds *int64 `json:"sinceSeconds,omitempty"`
	LimitBytes   *int64 `json:"limitBytes,omitempty"`
	// Interactive streams (kinds exec, attach, portforward).
	Stream *StreamRequest `json:"stream,omitempty"`
	// Path is the metrics path (kind metrics).
	Path string `json:"path,omitempty"`
}

// RPCChunk is one message on a node's rpc/resp/{id} topic. Seq counts from
// 1 per stream. The last chunk has EOF set; Error, when set, says why the
// stream failed and Code classifies it like HTTP (400, 404, 500).
type RPCChunk struct {
	ID    string `json:"id"`
	Seq   int64  `json:"seq"`
	Data  []byte `json:"data,omitempty"`
	EOF   bool   `json:"eof,omitempty"`
	Error string `json:"error,omitempty"`
	Code  int    `json:"code,omitempty"`
}

// Encode returns r as JSON after checking it.
func (r *RPCRequest) Encode() ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// Encode returns c as JSON after checking it.
func (c *RPCChunk) Encode() ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	return json.Marshal(c)
}

// DecodeRPCRequest reads and checks one request payload.
func DecodeRPCRequest(b []byte) (*RPCRequest, error) {
	if len(b) > RPCMaxRequest {
		return nil, fmt.Errorf("rpc request: %d bytes: must be at most %d", len(b), RPCMaxRequest)
	}
	var r RPCRequest
	if err := strictJSON(b, &r); err != nil {
		return nil, fmt.Errorf("rpc request: %w", err)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// DecodeRPCChunk reads and checks one chunk payload.
func DecodeRPCChunk(b []byte) (*RPCChunk, error) {
	if len(b) > RPCMaxChunkBytes {
		return nil, fmt.Errorf("rpc chunk: %d bytes: must be at most %d", len(b), RPCMaxChunkBytes)
	}
	var c RPCChunk
	if err := strictJSON(b, &c); err != nil {
		return nil, fmt.Errorf("rpc chunk: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// AgentStatus is the Status error the API answers when an agent refuses or
// fails a request (logs, exec, attach, port-forward) with code, an HTTP
// status, and message: the reason follows the code as upstream's does.
func AgentStatus(code int, message string) *apierrors.StatusError {
	reason := metav1.StatusReasonInternalError
	switch code {
	case http.StatusForbidden:
		reason = metav1.StatusReasonForbidden
	case http.StatusNotFound:
		reason = metav1.StatusReasonNotFound
	case http.StatusBadRequest:
		reason = metav1.StatusReasonBadRequest
	case http.StatusTooManyRequests:
		reason = metav1.StatusReasonTooManyRequests
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(code),
		Reason: reason, Message: message}}
}
