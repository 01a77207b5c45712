package mqtt

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
)

func (r *RPCRequest) check() error {
	if err := checkRPCID(r.ID); err != nil {
		return fmt.Errorf("rpc request: %w", err)
	}
	switch r.Kind {
	case RPCKindLogs:
		return r.checkLogs()
	case RPCKindAck:
		if r.Seq < 0 {
			return fmt.Errorf("rpc request %s: seq %d: must not be negative", r.ID, r.Seq)
		}
		return nil
	case RPCKindCancel:
		return nil
	case RPCKindExec, RPCKindAttach, RPCKindPortForward:
		return r.checkStream()
	case RPCKindMetrics:
		if r.Path != "/metrics" && r.Path != "/metrics/cadvisor" {
			return fmt.Errorf("rpc request %s: path %q: must be /metrics or /metrics/cadvisor", r.ID, r.Path)
		}
		return nil
	}
	return fmt.Errorf("rpc request %s: kind %q: must be %q, %q, %q, %q, %q, %q or %q", r.ID, r.Kind, RPCKindLogs,
		RPCKindAck, RPCKindCancel, RPCKindExec, RPCKindAttach, RPCKindPortForward, RPCKindMetrics)
}

func (r *RPCRequest) checkLogs() error {
	if err := r.checkNames(); err != nil {
		return err
	}
	return r.checkFilters()
}

func (r *RPCRequest) checkNames() error {
	for _, f := range []struct{ name, v string }{{"namespace", r.Namespace}, {"pod", r.Pod}, {"container", r.Container}} {
		if f.v == "" || len(f.v) > rpcMaxNameLen {
			return fmt.Errorf("rpc request %s: %s %q: must be 1-%d characters", r.ID, f.name, f.v, rpcMaxNameLen)
		}
	}
	for _, f := range []struct {
		name, v string
		msgs    []string
	}{
		{"namespace", r.Namespace, validation.IsDNS1123Label(r.Namespace)},
		{"pod", r.Pod, validation.IsDNS1123Subdomain(r.Pod)},
		{"container", r.Container, validation.IsDNS1123Label(r.Container)},
	} {
		if len(f.msgs) > 0 {
			return fmt.Errorf("rpc request %s: %s %q: %s", r.ID, f.name, f.v, f.msgs[0])
		}
	}
	return nil
}

func (r *RPCRequest) checkFilters() error {
	if r.UID == "" || len(r.UID) > 64 || !topicSafe(r.UID) {
		return fmt.Errorf("rpc request %s: uid %q: must be 1-64 letters, digits or dashes", r.ID, r.UID)
	}
	if r.TailLines != nil && (*r.TailLines < 0 || *r.TailLines > rpcMaxTail) {
		return fmt.Errorf("rpc request %s: tailLines %d: must be 0-%d", r.ID, *r.TailLines, rpcMaxTail)
	}
	if r.SinceSeconds != nil && *r.SinceSeconds <= 0 {
		return fmt.Errorf("rpc request %s: sinceSeconds %d: must be greater than 0", r.ID, *r.SinceSeconds)
	}
	if r.LimitBytes != nil && *r.LimitBytes <= 0 {
		return fmt.Errorf("rpc request %s: limitBytes %d: must be greater than 0", r.ID, *r.LimitBytes)
	}
	return nil
}

func (c *RPCChunk) check() error {
	if err := checkRPCID(c.ID); err != nil {
		return fmt.Errorf("rpc chunk: %w", err)
	}
	switch {
	case c.Seq < 1:
		return fmt.Errorf("rpc chunk %s: seq %d: must be at least 1", c.ID, c.Seq)
	case len(c.Data) > RPCMaxChunk:
		return fmt.Errorf("rpc chunk %s: %d data bytes: must be at most %d", c.ID, len(c.Data), RPCMaxChunk)
	case c.Error != "" && !c.EOF:
		return fmt.Errorf("rpc chunk %s: an error must come with eof", c.ID)
	case c.Error != "" && (c.Code < 400 || c.Code > 599):
		return fmt.Errorf("rpc chunk %s: code %d: an error needs a code 400-599", c.ID, c.Code)
	case c.Error == "" && c.Code != 0:
		return fmt.Errorf("rpc chunk %s: code %d without an error", c.ID, c.Code)
	case len(c.Error) > 1024:
		return fmt.Errorf("rpc chunk %s: error of %d bytes: must be at most 1024", c.ID, len(c.Error))
	}
	return nil
}

// checkRPCID: an id is one topic level, so only letters, digits and dashes.
func checkRPCID(id string) error {
	if id == "" || len(id) > rpcMaxIDLen || !topicSafe(id) {
		return fmt.Errorf("id %q: must be 1-%d letters, digits or dashes", id, rpcMaxIDLen)
	}
	return nil
}

func topicSafe(s string) bool {
	for _, r := range s {
		ok := r == '-' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}
