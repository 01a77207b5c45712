//go:build kubectl

package server

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/server/audit"
)

// checkAuditedSecret: the Secret's create is there at Metadata level, with
// kubectl's user, agent and address, and its value is nowhere in the log.
func checkAuditedSecret(t *testing.T, path string, events []audit.Event) {
	t.Helper()
	e := findEvent(events, func(e audit.Event) bool { return isRef(e, "create", "secrets") })
	if e == nil {
		t.Fatal("no event for kubectl create secret")
	}
	if e.Level != audit.LevelMetadata || e.Stage != audit.StageResponseComplete || e.ResponseStatus == nil ||
		e.ResponseStatus.Code != 201 || e.User.Username != "admin" || e.ObjectRef.Namespace != "default" || e.ObjectRef.Name != "s1" {
		t.Errorf("create secret event: got level %s stage %s status %+v user %q ref %+v, want Metadata ResponseComplete 201 admin default/s1",
			e.Level, e.Stage, e.ResponseStatus, e.User.Username, e.ObjectRef)
	}
	if !strings.HasPrefix(e.UserAgent, "kubectl/") || len(e.SourceIPs) != 1 || e.SourceIPs[0] != "127.0.0.1" || len(e.AuditID) != 36 {
		t.Errorf("create secret event: got agent %q sources %v auditID %q, want kubectl/..., [127.0.0.1], a UUID", e.UserAgent, e.SourceIPs, e.AuditID)
	}
	if e.RequestObject != nil || e.ResponseObject != nil {
		t.Errorf("create secret event holds a body at Metadata level: %s %s", e.RequestObject, e.ResponseObject)
	}
	rt, st := time.Time(e.RequestReceivedTimestamp), time.Time(e.StageTimestamp)
	if rt.IsZero() || st.Before(rt) || st.Sub(rt) > 10*time.Second {
		t.Errorf("create secret event: received %v, stage %v, want stage shortly after received", rt, st)
	}
	data, _ := os.ReadFile(path)
	for _, v := range []string{"topsecret-value", base64.StdEncoding.EncodeToString([]byte("topsecret-value"))} {
		if strings.Contains(string(data), v) {
			t.Errorf("the audit log holds the Secret's value %q", v)
		}
	}
}

// checkAuditedConfigMap: at RequestResponse level both bodies are kept.
func checkAuditedConfigMap(t *testing.T, events []audit.Event) {
	t.Helper()
	e := findEvent(events, func(e audit.Event) bool { return isRef(e, "create", "configmaps") && e.RequestObject == nil })
	if e == nil || !strings.Contains(e.Annotations[audit.BodyAnnotation], "protobuf") {
		t.Errorf("kubectl create configmap (protobuf): got %+v, want an event saying the body was not logged", e)
	}
	e = findEvent(events, func(e audit.Event) bool { return isRef(e, "create", "configmaps") && e.RequestObject != nil })
	if e == nil {
		t.Fatal("no event with a body for kubectl apply of a configmap")
	}
	if e.Level != audit.LevelRequestResponse || !strings.Contains(string(e.RequestObject), "visible-value") ||
		!strings.Contains(string(e.ResponseObject), `"uid"`) {
		t.Errorf("create configmap event: got level %s request %s response %s, want RequestResponse with both bodies",
			e.Level, e.RequestObject, e.ResponseObject)
	}
}

// checkAuditedWatch: a watch is long-running: ResponseStarted, then
// ResponseComplete under the same audit ID.
func checkAuditedWatch(t *testing.T, events []audit.Event) {
	t.Helper()
	started := findEvent(events, func(e audit.Event) bool {
		return isRef(e, "watch", "configmaps") && e.Stage == audit.StageResponseStarted
	})
	if started == nil {
		t.Fatal("no ResponseStarted event for kubectl get --watch")
	}
	done := findEvent(events, func(e audit.Event) bool {
		return e.AuditID == started.AuditID && e.Stage == audit.StageResponseComplete
	})
	if done == nil || done.ResponseStatus.Code != 200 || done.ResponseObject != nil {
		t.Errorf("watch %s: got completion %+v, want ResponseComplete 200 without a body", started.AuditID, done)
	}
	if e := findEvent(events, func(e audit.Event) bool { return e.Stage == audit.StageRequestReceived }); e != nil {
		t.Errorf("omitStages RequestReceived: got %+v", e)
	}
	if e := findEvent(events, func(e audit.Event) bool { return strings.HasPrefix(e.RequestURI, "/readyz") }); e != nil {
		t.Errorf("level None for /readyz: got %+v", e)
	}
}

// checkAuditedRelist: a node's relist, served beside the API, is logged
// under the node's name.
func checkAuditedRelist(t *testing.T, events []audit.Event) {
	t.Helper()
	e := findEvent(events, func(e audit.Event) bool { return strings.HasPrefix(e.RequestURI, "/v1-bramble/nodes/pi-1/view") })
	if e == nil || e.User.Username != "system:node:pi-1" || e.Verb != "get" {
		t.Errorf("relist of pi-1: got %+v, want get by system:node:pi-1", e)
	}
}

// checkAuditedJoins: both joins are there under the token's bootstrap
// user, with the node asked for and the answer's code; no secret.
func checkAuditedJoins(t *testing.T, events []audit.Event, token string) {
	t.Helper()
	id := token[strings.Index(token, "::")+2 : strings.Index(token, ".")]
	for node, code := range map[string]int{"pi-1": 200, "pi-2": 401} {
		e := findEvent(events, func(e audit.Event) bool { return e.Annotations[joinNodeKey] == node })
		if e == nil {
			t.Errorf("no event for the join of %s", node)
			continue
		}
		if e.User.Username != "system:bootstrap:"+id || e.Verb != "create" || e.ResponseStatus.Code != code ||
			e.RequestObject != nil {
			t.Errorf("join of %s: got user %q verb %q status %+v, want system:bootstrap:%s create %d without body",
				node, e.User.Username, e.Verb, e.ResponseStatus, id, code)
		}
	}
}
