package apiserver

import (
	"context"
	"net/http"

	"github.com/bramble-edge/bramble/server/audit"
)

// noteAudit tells the audit log (when one wraps the API) what the request
// is about, before the body is read (API.serve has told it who asks).
func noteAudit(ctx context.Context, ri *requestInfo) {
	req := audit.Request{Verb: ri.verb}
	if ri.res != nil {
		req = audit.Request{Verb: ri.verb, ResourceRequest: true, APIGroup: ri.res.Group,
			APIVersion: ri.res.Version, Resource: ri.res.Name, Subresource: ri.sub,
			Namespace: ri.namespace, Name: ri.name, LongRunning: ri.longRunning()}
	}
	audit.SetRequest(ctx, req)
}

// longRunning is upstream's rule: watches and the streaming subresources
// (log, exec, attach, port-forward, proxy).
func (ri *requestInfo) longRunning() bool {
	switch ri.sub {
	case "log", "exec", "attach", "portforward", "proxy":
		return true
	}
	return ri.verb == "watch"
}

// noteAccessReview: a SelfSubjectAccessReview is served before the path
// is parsed.
func noteAccessReview(ctx context.Context) {
	audit.SetRequest(ctx, audit.Request{Verb: "create", ResourceRequest: true,
		APIGroup: "authorization.k8s.io", APIVersion: "v1", Resource: "selfsubjectaccessreviews"})
}

// auditName gives a create's audit events the object's name.
func auditName(r *http.Request, name string) { audit.SetObjectName(r.Context(), name) }
