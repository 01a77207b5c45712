package serviceaccounts

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/server/registry"
)

// Annotations of a legacy token Secret, as upstream's.
const (
	saNameAnnotation = corev1.ServiceAccountNameKey
	saUIDAnnotation  = corev1.ServiceAccountUIDKey
)

func (c *Controller) sync(ctx context.Context, k key) error {
	if k.secret != "" {
		return c.syncSecret(ctx, k.ns, k.secret)
	}
	ns, err := c.reg.Get(ctx, namespaces, "", k.ns)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || ns.GetDeletionTimestamp() != nil {
		return err
	}
	if err := ensureDefault(ctx, c.reg, k.ns); err != nil {
		return fmt.Errorf("default service account: %w", err)
	}
	return c.syncRootCA(ctx, k.ns)
}

// ensureDefault creates ns's default ServiceAccount unless it exists.
func ensureDefault(ctx context.Context, reg *registry.Registry, ns string) error {
	if _, err := reg.Get(ctx, serviceAccounts, ns, DefaultName); !apierrors.IsNotFound(err) {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultName, Namespace: ns}}
	_, err := reg.Create(ctx, serviceAccounts, ns, sa, registry.WriteOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// syncRootCA makes ns's kube-root-ca.crt hold the CA bundle, and only it.
func (c *Controller) syncRootCA(ctx context.Context, ns string) error {
	if len(c.cfg.CAPEM) == 0 {
		return nil
	}
	obj, err := c.reg.Get(ctx, configMaps, ns, RootCAConfigMap)
	if apierrors.IsNotFound(err) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: RootCAConfigMap, Namespace: ns},
			Data: map[string]string{RootCAKey: string(c.cfg.CAPEM)}}
		_, err = c.reg.Create(ctx, configMaps, ns, cm, registry.WriteOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	cm := obj.(*corev1.ConfigMap)
	if len(cm.Data) == 1 && cm.Data[RootCAKey] == string(c.cfg.CAPEM) && len(cm.BinaryData) == 0 {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data, cm.BinaryData = map[string]string{RootCAKey: string(c.cfg.CAPEM)}, nil
	_, err = c.reg.Update(ctx, configMaps, ns, cm.Name, "", cm, false)
	return err
}

// syncSecret fills in a legacy token Secret: token, ca.crt and namespace,
// and the account's uid. A Secret naming an account that does not exist
// is left empty (upstream deletes it; an account created later fills it).
func (c *Controller) syncSecret(ctx context.Context, ns, name string) error {
	obj, err := c.reg.Get(ctx, secrets, ns, name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	sec := obj.(*corev1.Secret)
	if !c.needsToken(ctx, sec) || sec.Annotations[saNameAnnotation] == "" {
		return nil
	}
	saObj, err := c.reg.Get(ctx, serviceAccounts, ns, sec.Annotations[saNameAnnotation])
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	sa := saObj.(*corev1.ServiceAccount)
	if uid := sec.Annotations[saUIDAnnotation]; uid != "" && uid != string(sa.UID) {
		return nil // the account was replaced: this Secret is not its
	}
	return c.fillSecret(ctx, sa, sec.DeepCopy())
}

func (c *Controller) fillSecret(ctx context.Context, sa *corev1.ServiceAccount, sec *corev1.Secret) error {
	token, err := c.cfg.Tokens.IssueLegacy(ctx, sa, sec)
	if err != nil {
		return err
	}
	if sec.Data == nil {
		sec.Data = map[string][]byte{}
	}
	sec.Data[corev1.ServiceAccountTokenKey] = []byte(token)
	sec.Data[corev1.ServiceAccountNamespaceKey] = []byte(sa.Namespace)
	sec.Data[corev1.ServiceAccountRootCAKey] = bytes.Clone(c.cfg.CAPEM)
	sec.Annotations[saUIDAnnotation] = string(sa.UID)
	_, err = c.reg.Update(ctx, secrets, sec.Namespace, sec.Name, "", sec, false)
	if apierrors.IsConflict(err) {
		c.enqueue(key{ns: sec.Namespace, secret: sec.Name})
		return nil
	}
	return err
}
