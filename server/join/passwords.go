package join

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/registry"
)

// Where node passwords live: one Secret per node in TokenNamespace named
// <node>+PasswordSecretSuffix, of type PasswordSecretType, labelled
// JoinedWithLabel=<id of the token of the node's latest join>. Its data
// holds the node's name and the sha256 (hex) of node name and password;
// the password itself stays on the node.
const (
	PasswordSecretSuffix = ".node-password.bramble"
	PasswordSecretType   = corev1.SecretType("bramble.io/node-password")
	JoinedWithLabel      = "bramble.io/joined-with-token"
)

// MaxNodeNameLen is the longest node name whose password Secret name is
// still a valid object name (253 characters).
const MaxNodeNameLen = 253 - len(PasswordSecretSuffix)

// Keys of a password Secret's data.
const (
	keyNode         = "node"
	keyPasswordHash = "password-hash"
)

// NodePasswords keeps the hash of each node's password, written through
// the registry like any Secret (admitted, watched, in snapshots).
type NodePasswords struct {
	objects *registry.Client
	certs   *NodeCertRegistry // nil: no certificate records consulted
}

// NewNodePasswords returns the node passwords kept through objects. With
// certs, a name without a password whose node holds a certificate and
// has registered its Node (it joined before node passwords existed, or
// its password Secret was deleted) stays held until the Node is deleted.
func NewNodePasswords(objects *registry.Client, certs *NodeCertRegistry) *NodePasswords {
	return &NodePasswords{objects: objects, certs: certs}
}

// PasswordSecretName is the name of node's password Secret.
func PasswordSecretName(node string) string { return node + PasswordSecretSuffix }

// hashPassword binds the password to the node's name, so equal passwords
// of two nodes do not show as equal hashes.
func hashPassword(node, password string) string {
	sum := sha256.Sum256([]byte(node + "\x00" + password))
	return hex.EncodeToString(sum[:])
}

// Ensure lets node join with password and token: the first join under a
// name (token usage UsageJoin) stores its hash, a later one (UsageRejoin)
// must present the same password. A mismatch is a *nodejoin.Error of kind
// ErrNodePassword saying what to do, a join the token is not scoped to
// one of kind ErrTokenUsage. The token is noted on the Secret for
// `bramble token list`.
func (p *NodePasswords) Ensure(ctx context.Context, node, password string, token *TokenInfo) error {
	for attempt := 0; ; attempt++ {
		sec, err := p.get(ctx, node)
		if apierrors.IsNotFound(err) {
			if !token.Allows(UsageJoin) {
				return usageRefusal(token, node, false)
			}
			if p.certs != nil && p.certs.registered(node) {
				return heldWithoutPassword(node)
			}
			_, err = p.objects.Create(ctx, newPasswordSecret(node, password, token.ID))
			if apierrors.IsAlreadyExists(err) && attempt < 3 {
				continue // a concurrent first join won: check against it
			}
		}
		if err != nil || sec == nil {
			return wrapPassword(node, err)
		}
		want := []byte(sec.Data[keyPasswordHash])
		if subtle.ConstantTimeCompare([]byte(hashPassword(node, password)), want) != 1 {
			return p.mismatch(ctx, node)
		}
		if !token.Allows(UsageRejoin) {
			return usageRefusal(token, node, true)
		}
		return p.noteToken(ctx, sec, token.ID)
	}
}

func wrapPassword(node string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("node password of %s: %w", node, err)
}

func (p *NodePasswords) get(ctx context.Context, node string) (*corev1.Secret, error) {
	obj, err := p.objects.Get(ctx, secrets, TokenNamespace, PasswordSecretName(node))
	if err != nil {
		return nil, err
	}
	sec, ok := obj.(*corev1.Secret)
	if !ok || sec.Type != PasswordSecretType {
		return nil, fmt.Errorf("secret %s/%s is not a node password (want type %q)",
			TokenNamespace, PasswordSecretName(node), PasswordSecretType)
	}
	return sec, nil
}

// mismatch is the refusal of a join under a name taken by another
// machine; it says how the name can be freed.
func (p *NodePasswords) mismatch(ctx context.Context, node string) error {
	msg := fmt.Sprintf("node %s already joined with another node password: delete the Node (kubectl delete node %s) "+
		"to let this machine take its name, or restore <data-dir>/agent/%s from the machine that joined as %s",
		node, node, nodejoin.NodePasswordFile, node)
	if _, err := p.objects.Get(ctx, nodes, "", node); apierrors.IsNotFound(err) {
		msg = fmt.Sprintf("node %s already joined with another node password and has not registered its Node yet: "+
			"if that machine is gone, delete its password (kubectl -n %s delete secret %s) to let this machine take its name, "+
			"or restore <data-dir>/agent/%s from the machine that joined as %s",
			node, TokenNamespace, PasswordSecretName(node), nodejoin.NodePasswordFile, node)
	}
	return &nodejoin.Error{Kind: nodejoin.ErrNodePassword, Msg: msg}
}

// heldWithoutPassword refuses a name whose registered node has a
// certificate but no password on record.
func heldWithoutPassword(node string) error {
	return &nodejoin.Error{Kind: nodejoin.ErrNodePassword, Msg: fmt.Sprintf(
		"node %s holds a certificate but no node password (it joined before node passwords existed, or its password was deleted): "+
			"delete the Node (kubectl delete node %s) to let this machine take its name", node, node)}
}

// noteToken labels sec with the token of the latest join. A lost race is
// not an error: the label is informational.
func (p *NodePasswords) noteToken(ctx context.Context, sec *corev1.Secret, tokenID string) error {
	if sec.Labels[JoinedWithLabel] == tokenID {
		return nil
	}
	sec = sec.DeepCopy()
	if sec.Labels == nil {
		sec.Labels = map[string]string{}
	}
	sec.Labels[JoinedWithLabel] = tokenID
	_, err := p.objects.Update(ctx, sec)
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return wrapPassword(string(sec.Data[keyNode]), err)
}

// Forget deletes node's password, freeing its name for any machine with a
// join token. No password is not an error.
func (p *NodePasswords) Forget(ctx context.Context, node string) error {
	err := p.objects.Delete(ctx, secrets, TokenNamespace, PasswordSecretName(node), controllers.DeleteOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("forget the node password of %s: %w", node, err)
}

func newPasswordSecret(node, password, tokenID string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      PasswordSecretName(node),
			Namespace: TokenNamespace,
			Labels:    map[string]string{JoinedWithLabel: tokenID},
			Annotations: map[string]string{
				"bramble.io/first-joined": time.Now().UTC().Format(time.RFC3339),
			},
		},
		Type: PasswordSecretType,
		Data: map[string][]byte{keyNode: []byte(node), keyPasswordHash: []byte(hashPassword(node, password))},
	}
}
