package apiserver

import (
	"net/http"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
)

// reviewSubjectAccess answers a SubjectAccessReview, or a
// LocalSubjectAccessReview when namespace is set (its question must be
// about that namespace): may the user the spec names do what it asks?
func (a *API) reviewSubjectAccess(w http.ResponseWriter, r *http.Request, _ *auth.User, namespace string) (any, error) {
	var review authorizationv1.SubjectAccessReview
	if namespace != "" {
		var local authorizationv1.LocalSubjectAccessReview
		if err := a.decodeReview(w, r, api.LocalSubjectAccessReviewResource, &local); err != nil {
			return nil, err
		}
		review = authorizationv1.SubjectAccessReview(local)
	} else if err := a.decodeReview(w, r, api.SubjectAccessReviewResource, &review); err != nil {
		return nil, err
	}
	spec := &review.Spec
	if (spec.ResourceAttributes == nil) == (spec.NonResourceAttributes == nil) {
		return nil, badRequest("spec: exactly one of nonResourceAttributes or resourceAttributes must be specified")
	}
	if spec.User == "" && len(spec.Groups) == 0 {
		return nil, badRequest("spec.user: at least one of user or group must be specified")
	}
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
	if namespace != "" {
		review.Kind, review.Namespace = "LocalSubjectAccessReview", namespace
		if spec.ResourceAttributes == nil {
			return nil, badRequest("spec.resourceAttributes: a local review asks about its namespace's resources")
		}
		if ns := spec.ResourceAttributes.Namespace; ns != "" && ns != namespace {
			return nil, badRequest("spec.resourceAttributes.namespace: %q must match the review's namespace %q", ns, namespace)
		}
		spec.ResourceAttributes.Namespace = namespace
	}
	subject := &auth.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	for k, v := range spec.Extra {
		if subject.Extra == nil {
			subject.Extra = map[string][]string{}
		}
		subject.Extra[k] = v
	}
	if node, ok := strings.CutPrefix(spec.User, join.NodeUserPrefix); ok && slices.Contains(spec.Groups, join.NodeGroup) {
		subject.Role, subject.Node = auth.RoleNode, node
	}
	ssar := authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: spec.ResourceAttributes, NonResourceAttributes: spec.NonResourceAttributes}
	review.Status = a.decision(r.Context(), subject, reviewAttributes(&ssar))
	return &review, nil
}

// reviewRules answers a SelfSubjectRulesReview (kubectl auth can-i
// --list): the rules the caller holds in spec.namespace.
func (a *API) reviewRules(w http.ResponseWriter, r *http.Request, user *auth.User, _ string) (any, error) {
	var review authorizationv1.SelfSubjectRulesReview
	if err := a.decodeReview(w, r, api.SelfSubjectRulesReviewResource, &review); err != nil {
		return nil, err
	}
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SelfSubjectRulesReview"
	lister, ok := a.authz.(RulesLister)
	if !ok {
		review.Status = authorizationv1.SubjectRulesReviewStatus{Incomplete: true,
			EvaluationError: "the authorizer cannot list rules", ResourceRules: []authorizationv1.ResourceRule{},
			NonResourceRules: []authorizationv1.NonResourceRule{}}
		return &review, nil
	}
	rules, _ := lister.RulesFor(user, review.Spec.Namespace)
	st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{},
		NonResourceRules: []authorizationv1.NonResourceRule{}}
	for _, rule := range rules {
		if len(rule.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: rule.Verbs, NonResourceURLs: rule.NonResourceURLs})
			continue
		}
		st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: rule.Verbs,
			APIGroups: rule.APIGroups, Resources: rule.Resources, ResourceNames: rule.ResourceNames})
	}
	review.Status = st
	return &review, nil
}
