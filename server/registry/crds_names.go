package registry

import (
	"context"
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/bramble-edge/bramble/api"
)

// nameConflict is why a CRD's names are not accepted, in upstream's
// reasons (PluralConflict, SingularConflict, ShortNamesConflict,
// KindConflict, ListKindConflict).
type nameConflict struct{ reason, message string }

// crdNameConflict compares crd's names with the accepted names of the
// other definitions of its group and with the built-in kinds.
func (r *Registry) crdNameConflict(ctx context.Context, crd *apiextv1.CustomResourceDefinition) (*nameConflict, error) {
	list, err := r.List(ctx, crdResource, "", ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, obj := range list.Items {
		other := obj.(*apiextv1.CustomResourceDefinition)
		if other.Name == crd.Name || other.Spec.Group != crd.Spec.Group {
			continue
		}
		if c := namesConflict(&crd.Spec.Names, &other.Status.AcceptedNames); c != nil {
			return c, nil
		}
	}
	for _, res := range r.kinds.All() {
		if res.Unstructured() || res.Group != crd.Spec.Group {
			continue
		}
		builtin := apiextv1.CustomResourceDefinitionNames{Plural: res.Name, Singular: res.Singular,
			Kind: res.Kind, ListKind: res.Kind + "List", ShortNames: res.ShortNames}
		if c := namesConflict(&crd.Spec.Names, &builtin); c != nil {
			return c, nil
		}
	}
	return nil, nil
}

func namesConflict(n, used *apiextv1.CustomResourceDefinitionNames) *nameConflict {
	taken := func(s string) bool {
		return s != "" && (s == used.Plural || s == used.Singular || hasString(used.ShortNames, s))
	}
	inUse := func(reason, s string) *nameConflict {
		return &nameConflict{reason: reason, message: fmt.Sprintf("%q is already in use", s)}
	}
	switch {
	case taken(n.Plural):
		return inUse("PluralConflict", n.Plural)
	case taken(n.Singular):
		return inUse("SingularConflict", n.Singular)
	case n.Kind != "" && (n.Kind == used.Kind || n.Kind == used.ListKind):
		return inUse("KindConflict", n.Kind)
	case n.ListKind != "" && (n.ListKind == used.Kind || n.ListKind == used.ListKind):
		return inUse("ListKindConflict", n.ListKind)
	}
	for _, s := range n.ShortNames {
		if taken(s) {
			return inUse("ShortNamesConflict", s)
		}
	}
	return nil
}

// serveCRD replaces the kinds served for the definition named crd (none
// at first) with served, in one change of the set.
func (k *Kinds) serveCRD(crd string, served []*api.Resource) {
	k.mu.Lock()
	cur := k.set.Load()
	all := make([]*api.Resource, 0, len(cur.all)+len(served))
	for _, res := range cur.all {
		if c := res.Custom(); c == nil || c.CRD != crd {
			all = append(all, res)
		}
	}
	all = append(all, served...)
	k.set.Store(buildKindSet(all, cur.gen+1))
	k.notifyLocked()
}
