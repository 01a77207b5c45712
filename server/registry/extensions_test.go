package registry

import (
	"context"
	"os"
	"testing"

	arv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestExtensionKindsValidation writes invalid CSRs, webhook
// configurations, admission policies and APIServices through the
// registry on SQLite and wants upstream's 422s, naming the field.
func TestExtensionKindsValidation(t *testing.T) {
	c, ctx := newTestRegistry(t).Client(), context.Background()
	req, err := os.ReadFile("testdata/alice.csr")
	if err != nil {
		t.Fatal(err)
	}
	name := func(n string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: n} }
	short, none := int32(60), arv1.SideEffectClassNone
	svc := &arv1.ServiceReference{Namespace: "default", Name: "hook"}
	hook := func(n string, cc arv1.WebhookClientConfig, versions ...string) arv1.ValidatingWebhook {
		return arv1.ValidatingWebhook{Name: n, ClientConfig: cc, SideEffects: &none, AdmissionReviewVersions: versions}
	}
	rules := &arv1.MatchResources{ResourceRules: []arv1.NamedRuleWithOperations{{RuleWithOperations: arv1.RuleWithOperations{
		Operations: []arv1.OperationType{"CREATE"}, Rule: arv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}
	for _, tc := range []struct {
		name  string
		obj   api.Object
		field string
	}{
		{"csr request", &certificatesv1.CertificateSigningRequest{ObjectMeta: name("c1"), Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: []byte("nope"), SignerName: "example.com/s", Usages: []certificatesv1.KeyUsage{"client auth"}}}, "spec.request"},
		{"csr signer", &certificatesv1.CertificateSigningRequest{ObjectMeta: name("c2"), Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: req, SignerName: "no-slash", Usages: []certificatesv1.KeyUsage{"client auth"}}}, "spec.signerName"},
		{"csr usages", &certificatesv1.CertificateSigningRequest{ObjectMeta: name("c3"), Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: req, SignerName: "example.com/s"}}, "spec.usages"},
		{"csr duration", &certificatesv1.CertificateSigningRequest{ObjectMeta: name("c4"), Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: req, SignerName: "example.com/s", Usages: []certificatesv1.KeyUsage{"client auth"}, ExpirationSeconds: &short}}, "spec.expirationSeconds"},
		{"webhook name", &arv1.ValidatingWebhookConfiguration{ObjectMeta: name("w1"), Webhooks: []arv1.ValidatingWebhook{
			hook("nodots", arv1.WebhookClientConfig{Service: svc}, "v1")}}, "webhooks[0].name"},
		{"webhook url and service", &arv1.ValidatingWebhookConfiguration{ObjectMeta: name("w2"), Webhooks: []arv1.ValidatingWebhook{
			hook("a.example.com", arv1.WebhookClientConfig{}, "v1")}}, "webhooks[0].clientConfig"},
		{"webhook review versions", &arv1.ValidatingWebhookConfiguration{ObjectMeta: name("w3"), Webhooks: []arv1.ValidatingWebhook{
			hook("a.example.com", arv1.WebhookClientConfig{Service: svc}, "v2")}}, "webhooks[0].admissionReviewVersions"},
		{"webhook duplicate", &arv1.ValidatingWebhookConfiguration{ObjectMeta: name("w4"), Webhooks: []arv1.ValidatingWebhook{
			hook("a.example.com", arv1.WebhookClientConfig{Service: svc}, "v1"), hook("a.example.com", arv1.WebhookClientConfig{Service: svc}, "v1")}}, "webhooks[1].name"},
		{"mutating side effects", &arv1.MutatingWebhookConfiguration{ObjectMeta: name("m1"), Webhooks: []arv1.MutatingWebhook{
			{Name: "a.example.com", ClientConfig: arv1.WebhookClientConfig{Service: svc}, AdmissionReviewVersions: []string{"v1"}}}}, "webhooks[0].sideEffects"},
		{"policy match", &arv1.ValidatingAdmissionPolicy{ObjectMeta: name("p1"), Spec: arv1.ValidatingAdmissionPolicySpec{
			Validations: []arv1.Validation{{Expression: "true"}}}}, "spec.matchConstraints"},
		{"policy validations", &arv1.ValidatingAdmissionPolicy{ObjectMeta: name("p2"), Spec: arv1.ValidatingAdmissionPolicySpec{MatchConstraints: rules}}, "spec.validations"},
		{"policy expression", &arv1.ValidatingAdmissionPolicy{ObjectMeta: name("p3"), Spec: arv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: rules, Validations: []arv1.Validation{{Message: "x"}}}}, "spec.validations[0].expression"},
		{"binding actions", &arv1.ValidatingAdmissionPolicyBinding{ObjectMeta: name("b1"), Spec: arv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "p", ValidationActions: []arv1.ValidationAction{"Deny", "Warn"}}}, "spec.validationActions"},
		{"binding policy", &arv1.ValidatingAdmissionPolicyBinding{ObjectMeta: name("b2"), Spec: arv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []arv1.ValidationAction{"Deny"}}}, "spec.policyName"},
		{"apiservice name", &api.APIService{ObjectMeta: name("v1.other.example.com"), Spec: api.APIServiceSpec{Group: "example.com", Version: "v1",
			GroupPriorityMinimum: 100, VersionPriority: 10}}, "metadata.name"},
		{"apiservice priority", &api.APIService{ObjectMeta: name("v1.example.com"), Spec: api.APIServiceSpec{Group: "example.com", Version: "v1",
			GroupPriorityMinimum: 100}}, "spec.versionPriority"},
		{"apiservice local ca", &api.APIService{ObjectMeta: name("v2.example.com"), Spec: api.APIServiceSpec{Group: "example.com", Version: "v2",
			GroupPriorityMinimum: 100, VersionPriority: 10, CABundle: []byte("x")}}, "spec.caBundle"},
	} {
		_, err := c.Create(ctx, tc.obj)
		wantInvalid(t, tc.name, err, tc.field)
	}
	got, err := c.Create(ctx, &arv1.ValidatingWebhookConfiguration{ObjectMeta: name("ok"), Webhooks: []arv1.ValidatingWebhook{
		hook("a.example.com", arv1.WebhookClientConfig{Service: svc}, "v1")}})
	if err != nil {
		t.Fatalf("valid webhook configuration: %v", err)
	}
	w := got.(*arv1.ValidatingWebhookConfiguration).Webhooks[0]
	if *w.FailurePolicy != arv1.Fail || *w.MatchPolicy != arv1.Equivalent || *w.TimeoutSeconds != 10 || *w.ClientConfig.Service.Port != 443 {
		t.Fatalf("got defaults failurePolicy %v matchPolicy %v timeout %v port %v, want Fail Equivalent 10 443",
			*w.FailurePolicy, *w.MatchPolicy, *w.TimeoutSeconds, *w.ClientConfig.Service.Port)
	}
}
