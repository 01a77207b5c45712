package satoken

import (
	"github.com/go-jose/go-jose/v4/jwt"
)

// LegacyIssuer is the iss of the tokens of kubernetes.io/service-account-token
// Secrets, as upstream's.
const LegacyIssuer = "kubernetes/serviceaccount"

// DefaultIssuer is the iss of bound tokens, and the API's audience, unless
// configured otherwise (k3s's and kubeadm's default).
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// privateClaims are the claims besides the registered ones: the
// "kubernetes.io" object of bound tokens, the flat claims of legacy ones.
type privateClaims struct {
	Kubernetes *kubernetesClaims `json:"kubernetes.io,omitempty"`

	LegacyNamespace string `json:"kubernetes.io/serviceaccount/namespace,omitempty"`
	LegacySecret    string `json:"kubernetes.io/serviceaccount/secret.name,omitempty"`
	LegacyName      string `json:"kubernetes.io/serviceaccount/service-account.name,omitempty"`
	LegacyUID       string `json:"kubernetes.io/serviceaccount/service-account.uid,omitempty"`
}

// kubernetesClaims is upstream's "kubernetes.io" claim.
type kubernetesClaims struct {
	Namespace      string           `json:"namespace"`
	ServiceAccount objectRef        `json:"serviceaccount"`
	Pod            *objectRef       `json:"pod,omitempty"`
	Secret         *objectRef       `json:"secret,omitempty"`
	Node           *objectRef       `json:"node,omitempty"`
	WarnAfter      *jwt.NumericDate `json:"warnafter,omitempty"`
}

// objectRef names an object the token is bound to (or its account).
type objectRef struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// Subject is the user name of a ServiceAccount.
func Subject(ns, name string) string {
	return "system:serviceaccount:" + ns + ":" + name
}

// Groups are the groups of a ServiceAccount of namespace ns.
func Groups(ns string) []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
}
