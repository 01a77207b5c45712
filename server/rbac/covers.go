package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Covers reports whether owner's rules grant everything rule grants, and
// lists the parts of rule they do not (each with one verb, group,
// resource and name, or one verb and path), as upstream's escalation check
// does: a wildcard in rule is covered only by the same wildcard.
func Covers(owner []rbacv1.PolicyRule, rule rbacv1.PolicyRule) (bool, []rbacv1.PolicyRule) {
	var missing []rbacv1.PolicyRule
	for _, atom := range atoms(rule) {
		if !anyCovers(owner, &atom) {
			missing = append(missing, atom)
		}
	}
	return len(missing) == 0, missing
}

// atoms splits rule into rules of one verb and one resource (group, name)
// or one path.
func atoms(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, verb := range rule.Verbs {
		for _, u := range rule.NonResourceURLs {
			out = append(out, rbacv1.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{u}})
		}
		names := rule.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, g := range rule.APIGroups {
			for _, r := range rule.Resources {
				for _, n := range names {
					a := rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{g}, Resources: []string{r}}
					if n != "" {
						a.ResourceNames = []string{n}
					}
					out = append(out, a)
				}
			}
		}
	}
	return out
}

func anyCovers(owner []rbacv1.PolicyRule, atom *rbacv1.PolicyRule) bool {
	for i := range owner {
		if coversAtom(&owner[i], atom) {
			return true
		}
	}
	return false
}

func coversAtom(o, atom *rbacv1.PolicyRule) bool {
	if !contains(o.Verbs, atom.Verbs[0]) {
		return false
	}
	if len(atom.NonResourceURLs) > 0 {
		u := atom.NonResourceURLs[0]
		for _, ou := range o.NonResourceURLs {
			if ou == rbacv1.NonResourceAll || ou == u ||
				(strings.HasSuffix(ou, "*") && strings.HasPrefix(u, ou[:len(ou)-1])) {
				return true
			}
		}
		return false
	}
	if !contains(o.APIGroups, atom.APIGroups[0]) || !resourceCovers(o.Resources, atom.Resources[0]) {
		return false
	}
	if len(o.ResourceNames) == 0 {
		return true
	}
	return len(atom.ResourceNames) == 1 && contains(o.ResourceNames, atom.ResourceNames[0]) &&
		atom.ResourceNames[0] != rbacv1.ResourceAll
}

func resourceCovers(owner []string, r string) bool {
	_, sub, hasSub := strings.Cut(r, "/")
	for _, o := range owner {
		if o == rbacv1.ResourceAll || o == r || (hasSub && o == "*/"+sub) {
			return true
		}
	}
	return false
}
