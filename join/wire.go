package join

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Paths of the join exchange on the API server's port.
const (
	// CACertsPath answers the cluster CA certificate, PEM, to anyone.
	CACertsPath = "/cacerts"
	// JoinPath takes a Request and answers a Response.
	JoinPath = "/v1-bramble/join"
)

// Identity a node certificate carries: CN=NodeUserPrefix+<node>,
// O=NodeGroup, defined here alone: the join client asks for it, the
// server's join and renewal sign it, its authenticator, the MQTT broker's
// ACL and the stream hub read it, all from here.
const (
	NodeUserPrefix = "system:node:"
	NodeGroup      = "system:nodes"
)

// ViewerGroup is the group of bramble's viewers, defined here alone: the
// organization of viewer certificates (CN=<name>), which the broker's ACL
// lets read bramble/v1/watch/, the group of viewer user tokens, and the
// subject RBAC's default binding of the bramble:viewer ClusterRole names.
// mqtt/broker, server/auth and server/bootstrap all read it from here.
const ViewerGroup = "bramble:viewers"

// Request is the body of POST JoinPath.
type Request struct {
	TokenID  string `json:"tokenID"`
	Secret   string `json:"secret"`
	NodeName string `json:"nodeName"`
	// CSR is a PEM "CERTIFICATE REQUEST" signed by the node's key; the
	// server ignores its subject and names the certificate after NodeName.
	CSR string `json:"csr"`
	// NodePassword is the node's own secret (NodePasswordFile): the first
	// join under NodeName stores its hash, later joins must present it.
	NodePassword string `json:"nodePassword"`
}

// Response is the answer to a successful join.
type Response struct {
	Certificate string `json:"certificate"` // node certificate, PEM
	CA          string `json:"ca"`          // cluster CA certificate, PEM
	// MQTTAddresses are broker URLs (mqtts://host:port) to connect to, best
	// first; empty when the server runs no broker.
	MQTTAddresses []string `json:"mqttAddresses"`
}

// Status is the body of a failed join, in the shape of a Kubernetes
// metav1.Status. Reason says which failure it is (the Reason* constants).
type Status struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Reason     string `json:"reason"`
	Code       int    `json:"code"`
}

// Reasons of failed joins.
const (
	ReasonTokenSecret     = "JoinTokenSecretMismatch" // 401
	ReasonTokenExpired    = "JoinTokenExpired"        // 401
	ReasonTokenNotFound   = "JoinTokenNotFound"       // 401
	ReasonInvalidNodeName = "InvalidNodeName"         // 422
	ReasonNodePassword    = "NodePasswordMismatch"    // 403
	ReasonTokenUsage      = "JoinTokenUsage"          // 403
	ReasonBadRequest      = "BadRequest"              // 400, 405, 413, 415
	ReasonTooManyRequests = "TooManyRequests"         // 429
	ReasonInternal        = "InternalError"           // 500
)

// Errors a join can end in, for errors.Is; the messages say more.
var (
	ErrCAHashMismatch  = errors.New("the server's CA certificate does not match the token's CA hash")
	ErrTokenSecret     = errors.New("join token secret does not match")
	ErrTokenExpired    = errors.New("join token expired")
	ErrTokenNotFound   = errors.New("join token not found")
	ErrInvalidNodeName = errors.New("invalid node name")
	ErrRateLimited     = errors.New("too many failed join attempts")
	// ErrNodePassword: the name belongs to a node that joined with another
	// node password.
	ErrNodePassword = errors.New("node password does not match")
	// ErrTokenUsage: the token may not be used to join nodes.
	ErrTokenUsage = errors.New("join token not usable for joining")
	// ErrRejected is any other refusal by the server (bad request, server
	// error, an answer that does not check out).
	ErrRejected = errors.New("join rejected")
)

// reasonErrors maps a Status reason to its sentinel.
var reasonErrors = map[string]error{
	ReasonTokenSecret:     ErrTokenSecret,
	ReasonTokenExpired:    ErrTokenExpired,
	ReasonTokenNotFound:   ErrTokenNotFound,
	ReasonInvalidNodeName: ErrInvalidNodeName,
	ReasonTooManyRequests: ErrRateLimited,
	ReasonNodePassword:    ErrNodePassword,
	ReasonTokenUsage:      ErrTokenUsage,
}

// Error is a join failure: its message is for people, Unwrap gives the
// sentinel for programs.
type Error struct {
	Kind error // one of the Err* sentinels
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Kind }

func joinError(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: "join: " + fmt.Sprintf(format, args...)}
}

// ValidateNodeName checks that name can name a node: a DNS-1123 subdomain
// (lowercase letters, digits, '-' and '.', at most 253 characters), as the
// API requires of Node names. Errors are *Error of kind ErrInvalidNodeName.
func ValidateNodeName(name string) error {
	if name == "" {
		return &Error{Kind: ErrInvalidNodeName, Msg: "node name: must not be empty"}
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return &Error{Kind: ErrInvalidNodeName, Msg: fmt.Sprintf("node name %q: %s", name, strings.Join(msgs, "; "))}
	}
	return nil
}
