package api

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

func init() {
	addServedGroup(rbacv1.AddToScheme, rbacv1.SchemeGroupVersion)
	rbac := func(name, kind string, namespaced bool, obj func() Object, list func() runtime.Object) *Resource {
		return &Resource{Group: rbacv1.GroupName, Version: "v1", Name: name, Singular: name[:len(name)-1], Kind: kind,
			Namespaced: namespaced, newObject: obj, newList: list}
	}
	name := Rules{Name: path.ValidatePathSegmentName}
	register(rbac("roles", "Role", true, func() Object { return &rbacv1.Role{} },
		func() runtime.Object { return &rbacv1.RoleList{} }),
		Rules{Name: name.Name, Validate: validateRole})
	register(rbac("clusterroles", "ClusterRole", false, func() Object { return &rbacv1.ClusterRole{} },
		func() runtime.Object { return &rbacv1.ClusterRoleList{} }),
		Rules{Name: name.Name, Validate: validateClusterRole})
	register(rbac("rolebindings", "RoleBinding", true, func() Object { return &rbacv1.RoleBinding{} },
		func() runtime.Object { return &rbacv1.RoleBindingList{} }),
		Rules{Name: name.Name, Default: defaultRoleBinding, Validate: validateRoleBinding, ValidateUpdate: validateRoleRefUpdate})
	register(rbac("clusterrolebindings", "ClusterRoleBinding", false, func() Object { return &rbacv1.ClusterRoleBinding{} },
		func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} }),
		Rules{Name: name.Name, Default: defaultRoleBinding, Validate: validateClusterRoleBinding, ValidateUpdate: validateRoleRefUpdate})
}

// addServedGroup makes the Scheme know a group version's kinds and the meta
// types (Status, WatchEvent, options) in it; kinds in files of their own
// call it from their init.
func addServedGroup(add func(*runtime.Scheme) error, gv schema.GroupVersion) {
	addLater(func(s *runtime.Scheme) {
		utilruntime.Must(add(s))
		metav1.AddToGroupVersion(s, gv)
	})
}

// defaultRoleBinding defaults roleRef.apiGroup and the apiGroup of User and
// Group subjects to rbac.authorization.k8s.io, as upstream's v1 defaults do.
func defaultRoleBinding(obj Object) {
	var ref *rbacv1.RoleRef
	var subjects []rbacv1.Subject
	switch o := obj.(type) {
	case *rbacv1.RoleBinding:
		ref, subjects = &o.RoleRef, o.Subjects
	case *rbacv1.ClusterRoleBinding:
		ref, subjects = &o.RoleRef, o.Subjects
	}
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
