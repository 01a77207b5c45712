package tables

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(rbacPrinters) }

func rbacPrinters() {
	register("Role", createdAtCells, "Name", "string", "Created At", "date")
	register("ClusterRole", createdAtCells, "Name", "string", "Created At", "date")
	binding := []string{"Name", "string", "Role", "string", "Age", "string",
		"Users+", "string", "Groups+", "string", "ServiceAccounts+", "string"}
	register("RoleBinding", roleBindingCells, binding...)
	register("ClusterRoleBinding", roleBindingCells, binding...)
	for k, v := range map[string]string{
		"Created At": "Time the object was created (metadata.creationTimestamp).",
		"Role":       "The role the binding grants: Role/<name> or ClusterRole/<name>.",
		"Users":      "Users the binding grants the role to.", "Groups": "Groups the binding grants the role to.",
		"ServiceAccounts": "Service accounts (namespace/name) the binding grants the role to.",
	} {
		columnHelp[k] = v
	}
}

// createdAtCells are NAME and CREATED AT, the columns upstream prints for
// roles (a timestamp, not an age).
func createdAtCells(obj api.Object, _ time.Time) []any {
	return []any{obj.GetName(), obj.GetCreationTimestamp().UTC().Format(time.RFC3339)}
}

func roleBindingCells(obj api.Object, now time.Time) []any {
	var ref rbacv1.RoleRef
	var subjects []rbacv1.Subject
	var created metav1.Time
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		ref, subjects, created = b.RoleRef, b.Subjects, b.CreationTimestamp
	case *rbacv1.ClusterRoleBinding:
		ref, subjects, created = b.RoleRef, b.Subjects, b.CreationTimestamp
	}
	users, groups, sas := subjectNames(subjects)
	return []any{obj.GetName(), ref.Kind + "/" + ref.Name, age(created, now), users, groups, sas}
}

// subjectNames splits a binding's subjects into the USERS, GROUPS and
// SERVICEACCOUNTS cells (comma-separated; namespace/name for accounts).
func subjectNames(subjects []rbacv1.Subject) (users, groups, sas string) {
	var u, g, s []string
	for _, sub := range subjects {
		switch sub.Kind {
		case rbacv1.UserKind:
			u = append(u, sub.Name)
		case rbacv1.GroupKind:
			g = append(g, sub.Name)
		case rbacv1.ServiceAccountKind:
			s = append(s, sub.Namespace+"/"+sub.Name)
		}
	}
	return strings.Join(u, ", "), strings.Join(g, ", "), strings.Join(s, ", ")
}
