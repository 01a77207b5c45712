package apiserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// manifests holds one valid object per served kind, by resource name.
var manifests = map[string]string{
	"namespaces": `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"NAME"}}`,
	"nodes":      `{"apiVersion":"v1","kind":"Node","metadata":{"name":"NAME","labels":{"kubernetes.io/arch":"arm64"}}}`,
	"pods": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME"},
		"spec":{"containers":[{"name":"main","image":"nginx:1"}]}}`,
	"configmaps": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"data":{"k":"v"}}`,
	"secrets":    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"NAME"},"stringData":{"k":"v"}}`,
	"events": `{"apiVersion":"v1","kind":"Event","metadata":{"name":"NAME"},
		"involvedObject":{"kind":"Pod","name":"p1","namespace":"default"},"reason":"Started","message":"hi","type":"Normal"}`,
	"deployments": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME"},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`,
	"replicasets": `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"NAME"},
		"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`,
	"daemonsets": `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"NAME"},
		"spec":{"selector":{"matchLabels":{"app":"agent"}},
		"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"name":"a","image":"busybox"}]}}}}`,
	"jobs": `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"NAME"},
		"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"j","image":"busybox"}]}}}}`,
	"serviceaccounts": `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"NAME"}}`,
	"replicationcontrollers": `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"NAME"},
		"spec":{"template":{"metadata":{"labels":{"app":"old"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`,
	"services": `{"apiVersion":"v1","kind":"Service","metadata":{"name":"NAME"},
		"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`,
	"endpoints": `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"NAME"},
		"subsets":[{"addresses":[{"ip":"10.42.0.5"}],"ports":[{"port":80}]}]}`,
	"endpointslices": `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"NAME"},
		"addressType":"IPv4","endpoints":[{"addresses":["10.42.0.5"]}],"ports":[{"port":80}]}`,
	"podtemplates": `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"NAME"},
		"template":{"spec":{"containers":[{"name":"main","image":"nginx:1"}]}}}`,
	"persistentvolumes": `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"NAME"},
		"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/data"}}}`,
	"persistentvolumeclaims": `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"NAME"},
		"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`,
	"leases": `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"NAME"},
		"spec":{"holderIdentity":"bramble-1","leaseDurationSeconds":15}}`,
	"resourcequotas": `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"NAME"},"spec":{"hard":{"pods":"10"}}}`,
	"limitranges": `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"NAME"},
		"spec":{"limits":[{"type":"Container","max":{"cpu":"64"}}]}}`,
	"priorityclasses": `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"NAME"},"value":100}`,
	"runtimeclasses":  `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"NAME"},"handler":"runc"}`,
	"poddisruptionbudgets": `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"NAME"},
		"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}`,
	"roles": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"NAME"},
		"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`,
	"clusterroles": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"NAME"},
		"rules":[{"nonResourceURLs":["/healthz"],"verbs":["get"]}]}`,
	"rolebindings": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"NAME"},
		"roleRef":{"kind":"Role","name":"reader"},"subjects":[{"kind":"User","name":"alice"}]}`,
	"clusterrolebindings": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"NAME"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
		"subjects":[{"kind":"ServiceAccount","name":"default","namespace":"default"}]}`,
	"certificatesigningrequests": `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"NAME"},
		"spec":{"signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"],"request":"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIa01JR01BZ0VBTUNveERqQU1CZ05WQkFNTUJXRnNhV05sTVJnd0ZnWURWUVFLREE5aWNtRnRZbXhsT25acApaWGRsY25Nd1dUQVRCZ2NxaGtqT1BRSUJCZ2dxaGtqT1BRTUJCd05DQUFUOVpERUxtcklkR2EyZVdPRVRZZjdJCmdIak1nVHErRHgyWFJqTmdnWlMvOTBqSVhQaE5SbVk1aWYvUXFBWU5td1h4Mkk2bkNmaDcxZWgwZE1NOFJSbzIKb0FBd0NnWUlLb1pJemowRUF3SURSd0F3UkFJZ0FVc09IOWpjU0wwdnEvUTkxcXdWOTgwcUhrcHpwdk9PZ3FNLwpFYU5nTmpJQ0lIeXNsaml6WjVPbmI0UWhrK2pVemJKdzUxQVJReVdLdHZ1NndPVUEzNVBFCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="}}`,
	"validatingwebhookconfigurations": `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
		"metadata":{"name":"NAME"},"webhooks":[{"name":"check.example.com","sideEffects":"None","admissionReviewVersions":["v1"],
		"clientConfig":{"service":{"namespace":"default","name":"hook"}},
		"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]}]}`,
	"mutatingwebhookconfigurations": `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",
		"metadata":{"name":"NAME"},"webhooks":[{"name":"inject.example.com","sideEffects":"None","admissionReviewVersions":["v1"],
		"clientConfig":{"url":"https://hook.example.com/mutate"}}]}`,
	"validatingadmissionpolicies": `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
		"metadata":{"name":"NAME"},"spec":{"matchConstraints":{"resourceRules":[{"operations":["CREATE"],
		"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"]}]},
		"validations":[{"expression":"object.spec.replicas <= 5"}]}}`,
	"validatingadmissionpolicybindings": `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
		"metadata":{"name":"NAME"},"spec":{"policyName":"replica-limit","validationActions":["Deny"]}}`,
	"apiservices": `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"NAME"},
		"spec":{"group":"crud.example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":15,
		"service":{"namespace":"default","name":"metrics"}}}`,
	"customresourcedefinitions": `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"NAME"},"spec":{"group":"crud.bramble.dev","scope":"Namespaced",
		"names":{"plural":"crud-1","kind":"Crud"},"versions":[{"name":"v1","served":true,"storage":true,
		"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`,
}

// crudNames are the names TestCRUDEveryKind gives kinds whose names have
// a form of their own (crud-1 for the rest).
var crudNames = map[string]string{"apiservices": "v1.crud.example.com",
	"customresourcedefinitions": "crud-1.crud.bramble.dev"}

func manifest(t testing.TB, res, name string) string {
	t.Helper()
	m, ok := manifests[res]
	if !ok {
		t.Fatalf("no test manifest for %s", res)
	}
	return strings.ReplaceAll(m, "NAME", name)
}

// collectionPath is where objects of res live (namespace default).
func collectionPath(res *api.Resource) string {
	p := "/api/v1/"
	if res.Group != "" {
		p = "/apis/" + res.Group + "/" + res.Version + "/"
	}
	if res.Namespaced {
		p += "namespaces/default/"
	}
	return p + res.Name
}

func TestCRUDEveryKind(t *testing.T) {
	e := newTestEnv(t)
	for _, res := range api.All() {
		t.Run(res.Name, func(t *testing.T) {
			coll, name := collectionPath(res), "crud-1"
			if n, ok := crudNames[res.Name]; ok {
				name = n
			}
			created := e.post(coll, manifest(t, manifestKey(res), name)).must(t, http.StatusCreated).obj(t)
			checkServerFields(t, created, res)
			uid := jget(created, "metadata.uid")

			got := e.get(coll+"/"+name).must(t, http.StatusOK).obj(t)
			if jget(got, "metadata.uid") != uid || jget(got, "kind") != res.Kind {
				t.Fatalf("get: got uid %v kind %v, want %v %s", jget(got, "metadata.uid"), jget(got, "kind"), uid, res.Kind)
			}

			list := e.get(coll).must(t, http.StatusOK).obj(t)
			if jget(list, "kind") != res.Kind+"List" || jget(list, "metadata.resourceVersion") == "" {
				t.Fatalf("list: got kind %v rv %v, want %sList with a resourceVersion", jget(list, "kind"), jget(list, "metadata.resourceVersion"), res.Kind)
			}
			if n := len(list["items"].([]any)); n < 1 {
				t.Fatalf("list: got %d items, want at least 1", n)
			}

			got["metadata"].(map[string]any)["labels"] = map[string]any{"updated": "yes"}
			updated := e.put(coll+"/"+name, got).must(t, http.StatusOK).obj(t)
			if jget(updated, "metadata.labels.updated") != "yes" || jget(updated, "metadata.resourceVersion") == jget(got, "metadata.resourceVersion") {
				t.Fatalf("update: got labels %v rv %v, want updated=yes and a new rv", jget(updated, "metadata.labels"), jget(updated, "metadata.resourceVersion"))
			}

			deleted := e.delete(coll+"/"+name).must(t, http.StatusOK).obj(t)
			if jget(deleted, "metadata.uid") != uid {
				t.Fatalf("delete: got uid %v, want %v", jget(deleted, "metadata.uid"), uid)
			}
			e.get(coll+"/"+name).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
		})
	}
}

// checkServerFields checks what the server sets on every created object.
func checkServerFields(t *testing.T, obj map[string]any, res *api.Resource) {
	t.Helper()
	if jget(obj, "kind") != res.Kind || jget(obj, "apiVersion") != res.APIVersion() {
		t.Fatalf("got kind %v apiVersion %v, want %s %s", jget(obj, "kind"), jget(obj, "apiVersion"), res.Kind, res.APIVersion())
	}
	for _, f := range []string{"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp"} {
		if s, ok := jget(obj, f).(string); !ok || s == "" {
			t.Fatalf("got %s=%v, want a non-empty string", f, jget(obj, f))
		}
	}
	if ts := jget(obj, "metadata.creationTimestamp").(string); !strings.HasSuffix(ts, "Z") || len(ts) != len("2006-01-02T15:04:05Z") {
		t.Fatalf("got creationTimestamp %q, want RFC 3339 in UTC to the second", ts)
	}
	if res.Generation && jget(obj, "metadata.generation") != float64(1) {
		t.Fatalf("got generation %v, want 1", jget(obj, "metadata.generation"))
	}
}

func TestCreateGenerateNameAndDryRun(t *testing.T) {
	e := newTestEnv(t)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}}`
	obj := e.post(cmPath, body).must(t, http.StatusCreated).obj(t)
	name, _ := jget(obj, "metadata.name").(string)
	if !strings.HasPrefix(name, "gen-") || len(name) != len("gen-")+5 {
		t.Fatalf("got generated name %q, want gen- and 5 characters", name)
	}
	e.get(cmPath+"/"+name).must(t, http.StatusOK)

	e.post(cmPath+"?dryRun=All", manifest(t, "configmaps", "dry")).must(t, http.StatusCreated)
	e.get(cmPath+"/dry").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.post(cmPath+"?dryRun=Some", manifest(t, "configmaps", "dry")).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestCreateTwiceIsAlreadyExists(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated)
	st := e.post(cmPath, manifest(t, "configmaps", "x")).status(t, http.StatusConflict, metav1.StatusReasonAlreadyExists)
	if st.Message != `configmaps "x" already exists` || st.Details == nil || st.Details.Name != "x" {
		t.Fatalf("got message %q details %+v, want configmaps \"x\" already exists", st.Message, st.Details)
	}
}

func TestUpdateStaleResourceVersionConflicts(t *testing.T) {
	e := newTestEnv(t)
	first := e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated).obj(t)
	first["data"] = map[string]any{"k": "two"}
	e.put(cmPath+"/x", first).must(t, http.StatusOK)

	first["data"] = map[string]any{"k": "three"}
	st := e.put(cmPath+"/x", first).status(t, http.StatusConflict, metav1.StatusReasonConflict)
	want := `Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again`
	if st.Message != want {
		t.Fatalf("got message %q, want %q", st.Message, want)
	}
	got := e.get(cmPath + "/x").obj(t)
	if jget(got, "data.k") != "two" {
		t.Fatalf("got data.k %v after the refused update, want two", jget(got, "data.k"))
	}
}

func TestUpdateWithoutChangeKeepsResourceVersion(t *testing.T) {
	e := newTestEnv(t)
	obj := e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated).obj(t)
	again := e.put(cmPath+"/x", obj).must(t, http.StatusOK).obj(t)
	if jget(again, "metadata.resourceVersion") != jget(obj, "metadata.resourceVersion") {
		t.Fatalf("got rv %v after a no-op update, want %v", jget(again, "metadata.resourceVersion"), jget(obj, "metadata.resourceVersion"))
	}
}

func TestListSelectorsAndPaging(t *testing.T) {
	e := newTestEnv(t)
	for i := 0; i < 7; i++ {
		labels := map[string]string{"app": pick(i%2 == 0, "even", "odd")}
		e.post(cmPath, cmJSON(fmt.Sprintf("cm-%d", i), nil, labels)).must(t, http.StatusCreated)
	}
	names := listNames(t, e, cmPath+"?labelSelector=app%3Deven")
	if strings.Join(names, ",") != "cm-0,cm-2,cm-4,cm-6" {
		t.Fatalf("got %v for app=even, want cm-0,cm-2,cm-4,cm-6", names)
	}
	names = listNames(t, e, cmPath+"?fieldSelector=metadata.name%3Dcm-3")
	if strings.Join(names, ",") != "cm-3" {
		t.Fatalf("got %v for metadata.name=cm-3, want cm-3", names)
	}
	names = listNames(t, e, cmPath+"?labelSelector=app+in+(odd),app!=even&limit=2")
	if strings.Join(names, ",") != "cm-1,cm-3,cm-5" {
		t.Fatalf("got %v paging app=odd by 2, want cm-1,cm-3,cm-5", names)
	}
	if n := len(listNames(t, e, "/api/v1/configmaps")); n != 7 {
		t.Fatalf("got %d configmaps across namespaces, want 7", n)
	}
}

// listNames follows continue tokens and returns the names listed.
func listNames(t *testing.T, e *testEnv, path string) []string {
	t.Helper()
	var names []string
	cont := ""
	for {
		p := path
		if cont != "" {
			p += "&continue=" + cont
		}
		list := e.get(p).must(t, http.StatusOK).obj(t)
		for _, it := range list["items"].([]any) {
			names = append(names, jget(it.(map[string]any), "metadata.name").(string))
		}
		cont, _ = jget(list, "metadata.continue").(string)
		if cont == "" {
			return names
		}
	}
}
