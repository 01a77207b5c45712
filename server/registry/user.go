package registry

import "context"

// UserInfo is who asks for a write, as far as admission needs to know:
// a CertificateSigningRequest records its requestor, for example.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
}

type userKey struct{}

// WithUser returns ctx carrying the user a write is made for. The API
// server sets it from the authenticated request; the server's own writes
// carry none.
func WithUser(ctx context.Context, u UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser put in ctx, and whether there is one.
func UserFrom(ctx context.Context) (UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(UserInfo)
	return u, ok
}
