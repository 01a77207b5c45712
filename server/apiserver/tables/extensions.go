package tables

import (
	"time"

	arv1 "k8s.io/api/admissionregistration/v1"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(extensionsPrinters) }

func extensionsPrinters() {
	register("ValidatingWebhookConfiguration", webhookCells, "Name", "string", "Webhooks", "integer", "Age", "string")
	register("MutatingWebhookConfiguration", webhookCells, "Name", "string", "Webhooks", "integer", "Age", "string")
	register("ValidatingAdmissionPolicy", policyCells, "Name", "string", "Validations", "integer", "ParamKind", "string", "Age", "string")
	register("ValidatingAdmissionPolicyBinding", policyBindingCells, "Name", "string", "PolicyName", "string", "ParamRef", "string", "Age", "string")
	register("APIService", apiServiceCells, "Name", "string", "Service", "string", "Available", "string", "Age", "string")
	for k, v := range map[string]string{
		"Webhooks": "Number of webhooks in the configuration.", "Validations": "Number of validations of the policy.",
		"ParamKind": "The kind of the policy's parameters (apiVersion/kind).", "PolicyName": "The policy bound.",
		"ParamRef":  "The parameter object the binding passes to the policy.",
		"Service":   "Where the group version is served: Local, or the Service's namespace/name.",
		"Available": "Whether the group version is served (the Available condition).",
	} {
		columnHelp[k] = v
	}
}

func webhookCells(obj api.Object, now time.Time) []any {
	n := 0
	switch o := obj.(type) {
	case *arv1.ValidatingWebhookConfiguration:
		n = len(o.Webhooks)
	case *arv1.MutatingWebhookConfiguration:
		n = len(o.Webhooks)
	}
	return []any{obj.GetName(), int64(n), age(obj.GetCreationTimestamp(), now)}
}

func policyCells(obj api.Object, now time.Time) []any {
	p := obj.(*arv1.ValidatingAdmissionPolicy)
	paramKind := "<unset>"
	if pk := p.Spec.ParamKind; pk != nil {
		paramKind = pk.APIVersion + "/" + pk.Kind
	}
	return []any{p.Name, int64(len(p.Spec.Validations)), paramKind, age(p.CreationTimestamp, now)}
}

func policyBindingCells(obj api.Object, now time.Time) []any {
	b := obj.(*arv1.ValidatingAdmissionPolicyBinding)
	ref := "<unset>"
	if pr := b.Spec.ParamRef; pr != nil {
		switch {
		case pr.Name != "" && pr.Namespace != "":
			ref = pr.Namespace + "/" + pr.Name
		case pr.Name != "":
			ref = "*/" + pr.Name
		case pr.Selector != nil:
			ref = pr.Selector.String()
		}
	}
	return []any{b.Name, b.Spec.PolicyName, ref, age(b.CreationTimestamp, now)}
}

func apiServiceCells(obj api.Object, now time.Time) []any {
	s := obj.(*api.APIService)
	service := "Local"
	if svc := s.Spec.Service; svc != nil {
		service = svc.Namespace + "/" + svc.Name
	}
	avail := "Unknown"
	for _, c := range s.Status.Conditions {
		if c.Type == "Available" {
			avail = c.Status
			if c.Status != "True" {
				avail += " (" + c.Reason + ")"
			}
		}
	}
	return []any{s.Name, service, avail, age(s.CreationTimestamp, now)}
}
