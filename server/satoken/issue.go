package satoken

import (
	"context"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
)

// DefaultExpirationSeconds is a TokenRequest's life when it asks for none.
const DefaultExpirationSeconds = 3600

// minExpirationSeconds is upstream's floor: ten minutes.
const minExpirationSeconds = 600

var (
	serviceAccounts = api.MustLookup("", "v1", "serviceaccounts")
	podsResource    = api.MustLookup("", "v1", "pods")
	secretsResource = api.MustLookup("", "v1", "secrets")
	nodesResource   = api.MustLookup("", "v1", "nodes")
)

var tokenRequestKind = schema.GroupKind{Group: "authentication.k8s.io", Kind: "TokenRequest"}

// Issue answers a TokenRequest for ServiceAccount ns/name: it checks the
// account and the bound object, and fills in spec defaults and status.
func (t *Tokens) Issue(ctx context.Context, ns, name string, req *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	if errs := t.defaultSpec(&req.Spec); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestKind, name, errs)
	}
	obj, err := t.cfg.Objects.Get(ctx, serviceAccounts, ns, name)
	if err != nil {
		return nil, err
	}
	sa := obj.(*corev1.ServiceAccount)
	kc := &kubernetesClaims{Namespace: ns, ServiceAccount: objectRef{Name: sa.Name, UID: string(sa.UID)}}
	if err := t.bind(ctx, sa, req.Spec.BoundObjectRef, kc); err != nil {
		return nil, err
	}
	now := t.cfg.Now()
	exp := now.Add(time.Duration(*req.Spec.ExpirationSeconds) * time.Second)
	std := jwt.Claims{Issuer: t.cfg.Issuer, Subject: Subject(ns, sa.Name), Audience: req.Spec.Audiences,
		Expiry: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
		ID: string(uuid.NewUUID())}
	token, err := jwt.Signed(t.signer).Claims(std).Claims(privateClaims{Kubernetes: kc}).Serialize()
	if err != nil {
		return nil, fmt.Errorf("sign token: %w", err)
	}
	out := req.DeepCopy()
	out.Name, out.Namespace, out.CreationTimestamp = name, ns, metav1.NewTime(now)
	out.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	return out, nil
}

// defaultSpec fills in audiences and expirationSeconds and checks them.
func (t *Tokens) defaultSpec(spec *authenticationv1.TokenRequestSpec) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Audiences) == 0 {
		spec.Audiences = append([]string(nil), t.cfg.Audiences...)
	}
	if spec.ExpirationSeconds == nil {
		d := int64(DefaultExpirationSeconds)
		spec.ExpirationSeconds = &d
	}
	p := field.NewPath("spec", "expirationSeconds")
	max := int64(t.cfg.MaxTTL / time.Second)
	switch e := *spec.ExpirationSeconds; {
	case e < minExpirationSeconds:
		errs = append(errs, field.Invalid(p, e, "may not specify a duration less than 10 minutes"))
	case e > 1<<32:
		errs = append(errs, field.Invalid(p, e, "may not specify a duration larger than 2^32 seconds"))
	case e > max:
		*spec.ExpirationSeconds = max // upstream caps at the maximum too
	}
	return errs
}

// bind checks the object the token is bound to and records it in kc.
func (t *Tokens) bind(ctx context.Context, sa *corev1.ServiceAccount, ref *authenticationv1.BoundObjectReference, kc *kubernetesClaims) error {
	if ref == nil {
		return nil
	}
	path := field.NewPath("spec", "boundObjectRef")
	var res *api.Resource
	switch ref.Kind {
	case "Pod":
		res = podsResource
	case "Secret":
		res = secretsResource
	case "Node":
		res = nodesResource
	default:
		return apierrors.NewInvalid(tokenRequestKind, sa.Name, field.ErrorList{
			field.NotSupported(path.Child("kind"), ref.Kind, []string{"Pod", "Secret", "Node"})})
	}
	if ref.APIVersion != "" && ref.APIVersion != "v1" {
		return apierrors.NewInvalid(tokenRequestKind, sa.Name, field.ErrorList{
			field.NotSupported(path.Child("apiVersion"), ref.APIVersion, []string{"v1"})})
	}
	ns := sa.Namespace
	if res == nodesResource {
		ns = ""
	}
	obj, err := t.cfg.Objects.Get(ctx, res, ns, ref.Name)
	if err != nil {
		return err
	}
	if ref.UID != "" && ref.UID != obj.GetUID() {
		return apierrors.NewConflict(res.GroupResource(), ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record (%s); the object might have been deleted and then recreated", ref.UID, obj.GetUID()))
	}
	return t.record(ctx, sa, obj, kc)
}

// record puts the bound object (and a pod's node) into kc.
func (t *Tokens) record(ctx context.Context, sa *corev1.ServiceAccount, obj api.Object, kc *kubernetesClaims) error {
	r := &objectRef{Name: obj.GetName(), UID: string(obj.GetUID())}
	switch o := obj.(type) {
	case *corev1.Pod:
		if o.Spec.ServiceAccountName != sa.Name {
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", sa.Name))
		}
		kc.Pod = r
		if o.Spec.NodeName != "" {
			if node, err := t.cfg.Objects.Get(ctx, nodesResource, "", o.Spec.NodeName); err == nil {
				kc.Node = &objectRef{Name: node.GetName(), UID: string(node.GetUID())}
			}
		}
	case *corev1.Secret:
		kc.Secret = r
	case *corev1.Node:
		kc.Node = r
	}
	return nil
}
