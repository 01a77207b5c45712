package join

import (
	"context"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/audit"
)

// Audit annotations of a join request's events.
const (
	AuditNodeKey  = "join.bramble.dev/node"
	AuditTokenKey = "join.bramble.dev/token-id"
)

// noteAudit tells the audit log (when one wraps the join endpoint) who
// asks to join as which node: the token's ID as a bootstrap user, as
// upstream names bootstrap token holders. The secret is never logged.
func noteAudit(ctx context.Context, req *nodejoin.Request) {
	audit.SetUser(ctx, "system:bootstrap:"+req.TokenID, []string{"system:bootstrappers"})
	audit.Annotate(ctx, AuditNodeKey, req.NodeName)
	audit.Annotate(ctx, AuditTokenKey, req.TokenID)
	audit.SetRequest(ctx, audit.Request{Verb: "create"})
}
