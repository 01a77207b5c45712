package apiserver

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const deployPath = "/apis/apps/v1/namespaces/default/deployments"

// twoContainerDeploy is a Deployment with containers web and side.
const twoContainerDeploy = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
   {"name":"web","image":"nginx:1","env":[{"name":"A","value":"1"}],"ports":[{"containerPort":80}]},
   {"name":"side","image":"busybox"}]}}}}`

func containerNames(obj map[string]any) []string {
	var names []string
	for _, c := range jget(obj, "spec.template.spec.containers").([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	return names
}

func TestMergePatchLabel(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated)
	obj := e.patch(cmPath+"/x?fieldManager=kubectl-label", mediaMergePatch, `{"metadata":{"labels":{"a":"b"}}}`).must(t, http.StatusOK).obj(t)
	if jget(obj, "metadata.labels.a") != "b" || jget(obj, "data.k") != "v" {
		t.Fatalf("got labels %v data %v, want a=b and data kept", jget(obj, "metadata.labels"), obj["data"])
	}
	dry := e.patch(cmPath+"/x?dryRun=All", mediaMergePatch, `{"data":{"k":"dry"}}`).must(t, http.StatusOK).obj(t)
	if jget(dry, "data.k") != "dry" || jget(e.get(cmPath+"/x").obj(t), "data.k") != "v" {
		t.Fatalf("dry-run patch: got answer %v, want it patched and the stored object unchanged", dry["data"])
	}
	obj = e.patch(cmPath+"/x", mediaMergePatch, `{"metadata":{"labels":null}}`).must(t, http.StatusOK).obj(t)
	if jget(obj, "metadata.labels") != nil {
		t.Fatalf("got labels %v after null, want none", jget(obj, "metadata.labels"))
	}
}

func TestStrategicPatchClientSideApply(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath+"?fieldManager=kubectl-client-side-apply&fieldValidation=Strict",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"app":"x"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"key\":\"one\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"labels\":{\"app\":\"x\"},\"name\":\"x\",\"namespace\":\"default\"}}\n"}},"data":{"key":"one"}}`).
		must(t, http.StatusCreated)
	body := `{"data":{"key":"two"},"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"key\":\"two\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"labels\":{\"app\":\"x\"},\"name\":\"x\",\"namespace\":\"default\"}}\n"}}}`
	obj := e.patch(cmPath+"/x?fieldManager=kubectl-client-side-apply&fieldValidation=Strict", mediaStrategicPatch, body).must(t, http.StatusOK).obj(t)
	if jget(obj, "data.key") != "two" || jget(obj, "metadata.labels.app") != "x" {
		t.Fatalf("got data %v labels %v, want key=two and app=x kept", obj["data"], jget(obj, "metadata.labels"))
	}
	last, _ := jget(obj, "metadata.annotations").(map[string]any)["kubectl.kubernetes.io/last-applied-configuration"].(string)
	if !strings.Contains(last, `"key":"two"`) {
		t.Fatalf("got last-applied %q, want it updated to key two", last)
	}
}

func TestStrategicPatchSetImageBumpsGeneration(t *testing.T) {
	e := newTestEnv(t)
	e.post(deployPath, manifest(t, "deployments", "web")).must(t, http.StatusCreated)
	body := `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"image":"nginx:2","name":"web"}]}}}}`
	obj := e.patch(deployPath+"/web?fieldManager=kubectl-set", mediaStrategicPatch, body).must(t, http.StatusOK).obj(t)
	c := jget(obj, "spec.template.spec.containers").([]any)
	if len(c) != 1 || c[0].(map[string]any)["image"] != "nginx:2" {
		t.Fatalf("got containers %v, want one web with nginx:2", c)
	}
	if jget(obj, "metadata.generation") != float64(2) {
		t.Fatalf("got generation %v after a spec change, want 2", jget(obj, "metadata.generation"))
	}
	again := e.patch(deployPath+"/web", mediaMergePatch, `{"metadata":{"labels":{"x":"y"}}}`).must(t, http.StatusOK).obj(t)
	if jget(again, "metadata.generation") != float64(2) {
		t.Fatalf("got generation %v after a label change, want 2", jget(again, "metadata.generation"))
	}
}

func TestStrategicPatchDirectives(t *testing.T) {
	e := newTestEnv(t)
	e.post(deployPath, twoContainerDeploy).must(t, http.StatusCreated)
	order := `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"web"}],"containers":[{"name":"web","image":"nginx:3"}]}}}}`
	obj := e.patch(deployPath+"/web", mediaStrategicPatch, order).must(t, http.StatusOK).obj(t)
	if got := strings.Join(containerNames(obj), ","); got != "side,web" {
		t.Fatalf("got containers %s after $setElementOrder, want side,web", got)
	}
	nullEnv := `{"spec":{"template":{"spec":{"containers":[{"name":"web","env":null}]}}}}`
	obj = e.patch(deployPath+"/web", mediaStrategicPatch, nullEnv).must(t, http.StatusOK).obj(t)
	for _, c := range jget(obj, "spec.template.spec.containers").([]any) {
		if cm := c.(map[string]any); cm["name"] == "web" && (cm["env"] != nil || cm["image"] != "nginx:3") {
			t.Fatalf("got web container %v, want env removed and image kept", cm)
		}
	}
	del := `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"$patch":"delete","name":"side"}]}}}}`
	obj = e.patch(deployPath+"/web", mediaStrategicPatch, del).must(t, http.StatusOK).obj(t)
	if got := strings.Join(containerNames(obj), ","); got != "web" {
		t.Fatalf("got containers %s after $patch delete, want web", got)
	}
}

func TestJSONPatchRolloutUndo(t *testing.T) {
	e := newTestEnv(t)
	e.post(deployPath, manifest(t, "deployments", "web")).must(t, http.StatusCreated)
	e.patch(deployPath+"/web", mediaMergePatch, `{"metadata":{"annotations":{"deployment.kubernetes.io/revision":"2"}},"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`).
		must(t, http.StatusOK)
	undo := `[{"op":"replace","path":"/spec/template","value":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1","resources":{}}]}}},
	 {"op":"replace","path":"/metadata/annotations","value":{"deployment.kubernetes.io/revision":"2","kubectl.kubernetes.io/last-applied-configuration":"{}"}}]`
	obj := e.patch(deployPath+"/web", mediaJSONPatch, undo).must(t, http.StatusOK).obj(t)
	c := jget(obj, "spec.template.spec.containers").([]any)[0].(map[string]any)
	ann := jget(obj, "metadata.annotations").(map[string]any)
	if c["image"] != "nginx:1" || ann["deployment.kubernetes.io/revision"] != "2" || ann["kubectl.kubernetes.io/last-applied-configuration"] != "{}" {
		t.Fatalf("got image %v annotations %v, want nginx:1 and the replaced annotations", c["image"], ann)
	}
	if jget(obj, "metadata.generation").(float64) < 3 {
		t.Fatalf("got generation %v, want it bumped by the template change", jget(obj, "metadata.generation"))
	}
	e.patch(deployPath+"/web", mediaJSONPatch, `[{"op":"test","path":"/spec/replicas","value":99}]`).
		status(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	e.patch(deployPath+"/web", mediaJSONPatch, `{"op":"replace"}`).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestPatchFieldValidation(t *testing.T) {
	e := newTestEnv(t)
	e.post(deployPath, manifest(t, "deployments", "web")).must(t, http.StatusCreated)
	st := e.patch(deployPath+"/web?fieldValidation=Strict", mediaMergePatch, `{"spec":{"foo":1}}`).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	if !strings.Contains(st.Message, `strict decoding error: unknown field "spec.foo"`) {
		t.Fatalf("got message %q, want the strict decoding error naming spec.foo", st.Message)
	}
	r := e.patch(deployPath+"/web?fieldValidation=Warn", mediaMergePatch, `{"spec":{"foo":1}}`).must(t, http.StatusOK)
	if w := r.header.Get("Warning"); w != `299 - "unknown field \"spec.foo\""` {
		t.Fatalf("got Warning %q, want 299 - \"unknown field \\\"spec.foo\\\"\"", w)
	}
	r = e.patch(deployPath+"/web?fieldValidation=Ignore", mediaMergePatch, `{"spec":{"foo":1}}`).must(t, http.StatusOK)
	if w := r.header.Get("Warning"); w != "" {
		t.Fatalf("got Warning %q with Ignore, want none", w)
	}
}

func TestPatchErrors(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated)
	e.patch(cmPath+"/missing", mediaMergePatch, `{"data":{"a":"b"}}`).status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	e.patch(cmPath+"/x", "application/json", `{"data":{"a":"b"}}`).status(t, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType)
	st := e.patch(cmPath+"/x", mediaMergePatch, `{"data":`).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	if !strings.Contains(st.Message, "malformed") {
		t.Fatalf("got message %q, want it to say the body is malformed", st.Message)
	}
	e.patch(cmPath+"/x", mediaMergePatch, `{"metadata":{"resourceVersion":"1"}}`).status(t, http.StatusConflict, metav1.StatusReasonConflict)
	e.patch(cmPath+"/x", mediaMergePatch, `{"metadata":{"name":"y"}}`).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.patch(cmPath+"/x?force=true", mediaMergePatch, `{"data":{"a":"b"}}`).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestServerSideApply(t *testing.T) {
	e := newTestEnv(t)
	path := cmPath + "/x?fieldManager=kubectl&fieldValidation=Strict&force=false"
	first := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default","labels":{"app":"x"}},"data":{"a":"1","b":"2"}}`
	obj := e.patch(path, mediaApplyPatch, first).must(t, http.StatusCreated).obj(t)
	if jget(obj, "data.a") != "1" || jget(obj, "data.b") != "2" || jget(obj, "metadata.uid") == nil {
		t.Fatalf("got %v after the creating apply, want data a=1 b=2 and a uid", obj)
	}
	second := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    app: x\ndata:\n  a: \"3\"\n"
	obj = e.patch(path, mediaApplyPatch, second).must(t, http.StatusOK).obj(t)
	if jget(obj, "data.a") != "3" || jget(obj, "data.b") != nil {
		t.Fatalf("got data %v, want a=3 and b removed (no longer applied)", obj["data"])
	}
	same := e.patch(path, mediaApplyPatch, second).must(t, http.StatusOK).obj(t)
	if jget(same, "metadata.resourceVersion") != jget(obj, "metadata.resourceVersion") {
		t.Fatalf("got rv %v after re-applying the same configuration, want %v unchanged", jget(same, "metadata.resourceVersion"), jget(obj, "metadata.resourceVersion"))
	}
	e.patch(cmPath+"/x?fieldManager=other", mediaApplyPatch, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"4"}}`).
		status(t, http.StatusConflict, metav1.StatusReasonConflict)
	obj = e.patch(cmPath+"/x?fieldManager=other&force=true", mediaApplyPatch, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"4"}}`).
		must(t, http.StatusOK).obj(t)
	if jget(obj, "data.a") != "4" {
		t.Fatalf("got data %v after a forced apply, want a=4", obj["data"])
	}
	e.patch(cmPath+"/x", mediaApplyPatch, first).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.patch(cmPath+"/x?fieldManager=kubectl", mediaApplyPatch, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.patch(path, mediaApplyPatch, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"spec":{"foo":1}}`).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestServerSideApplyDeployment(t *testing.T) {
	e := newTestEnv(t)
	path := deployPath + "/web?fieldManager=kubectl&fieldValidation=Strict"
	e.patch(path, mediaApplyPatch, twoContainerDeploy).must(t, http.StatusCreated)
	one := strings.Replace(twoContainerDeploy, `,
   {"name":"side","image":"busybox"}`, "", 1)
	obj := e.patch(path, mediaApplyPatch, one).must(t, http.StatusOK).obj(t)
	if got := strings.Join(containerNames(obj), ","); got != "web" {
		t.Fatalf("got containers %s, want web only", got)
	}
	if jget(obj, "metadata.generation") != float64(2) {
		t.Fatalf("got generation %v, want 2", jget(obj, "metadata.generation"))
	}
}
