package rbac

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/server/auth"
)

// sync makes user's binding match its Secret: created when missing,
// replaced when it names another role, deleted with the user.
func (u *UserBindings) sync(ctx context.Context, user string) error {
	want, err := u.wantBinding(user)
	if err != nil {
		return err
	}
	name := UserBindingPrefix + user
	obj, err := u.client.Get(ctx, clusterRoleBindingsRes, "", name)
	switch {
	case apierrors.IsNotFound(err):
		if want == nil {
			return nil
		}
		_, err = u.client.Create(ctx, want)
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %s: made meanwhile, looking again: %w", name, err)
		}
		return err
	case err != nil:
		return err
	}
	have := obj.(*rbacv1.ClusterRoleBinding)
	if have.Labels[auth.UserLabel] != user {
		return nil // not ours: an administrator's binding of that name
	}
	if want != nil && have.RoleRef == want.RoleRef {
		return nil
	}
	err = u.client.Delete(ctx, clusterRoleBindingsRes, "", name, controllers.DeleteOptions{UID: string(have.UID)})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if want != nil {
		_, err = u.client.Create(ctx, want)
	}
	return err
}

// wantBinding is the binding user's Secret calls for, nil without one.
func (u *UserBindings) wantBinding(user string) (*rbacv1.ClusterRoleBinding, error) {
	obj, ok := u.secrets.Get(auth.UserNamespace, auth.UserSecretPrefix+user)
	if !ok {
		return nil, nil
	}
	t, err := auth.StoredTokenFromSecret(obj.(*corev1.Secret))
	if err != nil {
		return nil, nil // a malformed user authenticates no one
	}
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: UserBindingPrefix + user, Labels: map[string]string{auth.UserLabel: user}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: auth.UserClusterRole(t.Role)},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: t.Name}},
	}, nil
}
