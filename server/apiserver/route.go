package apiserver

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/auth"
)

// requestInfo is what the URL and method of a request say: a resource
// request (res set) or a non-resource path (discovery, OpenAPI).
type requestInfo struct {
	verb      string // get list watch create update patch delete deletecollection
	res       *api.Resource
	namespace string
	name      string
	sub       string // status, scale, binding, log or ""
	path      string // non-resource requests: the URL path
	query     url.Values

	// Set by dispatch from the Accept header and includeObject.
	out           output
	includeObject string

	// user made the request; createAuthz is set when authorizing waits for
	// the body (see API.serve).
	user        *auth.User
	createAuthz bool
}

// authorizeAfterDecode reports whether authorizing must wait for the body:
// a node creating into a collection may only create objects of its own
// (its Node, its Lease), and only the body names them.
func (ri *requestInfo) authorizeAfterDecode() bool {
	return ri.verb == "create" && ri.res != nil && ri.sub == "" && ri.name == "" &&
		ri.user != nil && ri.user.Role == auth.RoleNode
}

func (ri *requestInfo) attributes() auth.Attributes {
	if ri.res == nil {
		return auth.Attributes{Verb: ri.verb, NonResourcePath: ri.path}
	}
	return auth.Attributes{
		Verb: ri.verb, Group: ri.res.Group, Resource: ri.res.Name, Subresource: ri.sub,
		Namespace: ri.namespace, Name: ri.name, FieldSelector: ri.query.Get("fieldSelector"),
	}
}

// parseRequest maps a URL path and method onto a requestInfo. Unknown paths
// give 404, methods a path does not serve 405, bad watch flags 400.
// kindLookup finds served kinds by group, version and plural name.
type kindLookup interface {
	Lookup(group, version, name string) (*api.Resource, bool)
}

func parseRequest(kinds kindLookup, r *http.Request) (*requestInfo, error) {
	q := r.URL.Query()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case parts[0] == "api" && len(parts) > 2 && parts[1] == "v1":
		if ri, ok, err := parseNodeProxy(kinds, parts[2:], r.Method, q); ok {
			return ri, err
		}
		return parseResourcePath(kinds, "", "v1", parts[2:], r.Method, q)
	case parts[0] == "apis" && len(parts) > 3:
		return parseResourcePath(kinds, parts[1], parts[2], parts[3:], r.Method, q)
	}
	return &requestInfo{verb: strings.ToLower(r.Method), path: r.URL.Path, query: q}, nil
}

// parseResourcePath handles the part after /api/v1 or /apis/{g}/{v}:
// {res}[/{name}[/{sub}]] or namespaces/{ns}/{res}[/{name}[/{sub}]].
func parseResourcePath(kinds kindLookup, group, version string, parts []string, method string, q url.Values) (*requestInfo, error) {
	ri := &requestInfo{query: q}
	ri.namespace, parts = splitNamespace(parts)
	if len(parts) > 3 || (ri.namespace == "" && len(parts) == 0) {
		return nil, notFoundPath()
	}
	res, ok := kinds.Lookup(group, version, parts[0])
	if !ok || (ri.namespace != "" && !res.Namespaced) {
		return nil, notFoundPath()
	}
	ri.res = res
	if len(parts) > 1 {
		if ri.name = parts[1]; ri.name == "" || (res.Namespaced && ri.namespace == "") {
			return nil, notFoundPath()
		}
	}
	if len(parts) > 2 {
		if ri.sub = parts[2]; !res.HasSubresource(ri.sub) {
			return nil, notFoundPath()
		}
	}
	verb, err := resourceVerb(method, ri, q)
	if err != nil {
		return nil, err
	}
	ri.verb = verb
	return ri, nil
}

// splitNamespace takes namespaces/{ns}/ off the front of a namespaced
// path; namespaces/{name}[/status] is the Namespace itself.
func splitNamespace(parts []string) (string, []string) {
	if parts[0] == "namespaces" && len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
		if parts[1] == "" {
			return "", nil
		}
		return parts[1], parts[2:]
	}
	return "", parts
}

// resourceVerb names the Kubernetes verb of a method on a resource path.
func resourceVerb(method string, ri *requestInfo, q url.Values) (string, error) {
	watch, err := boolParam(q, "watch")
	if err != nil {
		return "", err
	}
	verb := ""
	if connectSubresource(ri.sub) {
		// Upstream authorizes these upgrades as create whatever the method,
		// so a viewer who may get pods cannot exec through a GET.
		return pick(method == http.MethodGet || method == http.MethodPost, "create", ""), nil
	}
	switch method {
	case http.MethodGet:
		verb = pick(watch, "watch", pick(ri.name == "", "list", "get"))
		if ri.sub != "" && (watch || postOnly(ri.sub)) {
			verb = ""
		}
	case http.MethodPost:
		verb = pick((ri.name == "" && ri.sub == "") || postOnly(ri.sub), "create", "")
		verb = pick(ri.res.Namespaced && ri.namespace == "", "", verb)
	case http.MethodPut, http.MethodPatch:
		ok := ri.name != "" && ri.sub != "log" && !postOnly(ri.sub)
		verb = pick(ok, pick(method == http.MethodPut, "update", "patch"), "")
	case http.MethodDelete:
		verb = pick(ri.sub == "", pick(ri.name == "", "deletecollection", "delete"), "")
		verb = pick(ri.res.Namespaced && ri.namespace == "", "", verb)
	}
	if verb == "" {
		return "", methodNotAllowedPath()
	}
	return verb, nil
}

// postOnly reports the subresources served only by POST.
func postOnly(sub string) bool { return sub == "binding" || sub == "eviction" || sub == "token" }

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// boolParam reads an optional boolean query parameter.
func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("query parameter %s=%q: must be true or false", name, v)
	}
	return b, nil
}

// handler serves one resource request. It returns an error only when it
// has written nothing yet; the error is then answered as a Status.
type handler func(a *API, w http.ResponseWriter, r *http.Request, ri *requestInfo) error

// Handlers by verb for the main resource and the status subresource.
var verbHandlers = map[string]handler{
	"get":              (*API).get,
	"list":             (*API).list,
	"watch":            (*API).watch,
	"create":           (*API).create,
	"update":           (*API).update,
	"patch":            (*API).patch,
	"delete":           (*API).delete,
	"deletecollection": (*API).deleteCollection,
}

// Handlers of the subresources that do not return the main object.
var subHandlers = map[string]map[string]handler{
	"scale":       {"get": (*API).getScale, "update": (*API).updateScale, "patch": (*API).patchScale},
	"binding":     {"create": (*API).createBinding},
	"eviction":    {"create": (*API).createEviction},
	"token":       {"create": (*API).createToken},
	"log":         {"get": (*API).podLogs},
	"exec":        {"create": (*API).podExec},
	"attach":      {"create": (*API).podAttach},
	"portforward": {"create": (*API).podPortForward},
	"proxy":       {"get": (*API).nodeProxy},
}

// dispatch negotiates the response form and runs the verb's handler.
func (a *API) dispatch(w http.ResponseWriter, r *http.Request, ri *requestInfo) {
	h := verbHandlers[ri.verb]
	if subs, ok := subHandlers[ri.sub]; ok {
		h = subs[ri.verb]
	}
	if h == nil {
		a.writeError(w, r, methodNotAllowedPath())
		return
	}
	if err := a.negotiateResource(r, ri); err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := h(a, w, r, ri); err != nil {
		a.writeError(w, r, err)
	}
}

// negotiateResource settles the response form: Tables only for the main
// resource and status; pod logs are plain text whatever Accept says.
func (a *API) negotiateResource(r *http.Request, ri *requestInfo) error {
	if ri.sub == "log" || ri.sub == "proxy" || connectSubresource(ri.sub) {
		return nil
	}
	var allowed []output
	if ri.sub == "" || ri.sub == "status" || ri.sub == "approval" {
		allowed = append(allowed, outTable)
	}
	out, err := negotiate(r.Header.Get("Accept"), allowed...)
	if err != nil {
		return err
	}
	ri.out = out
	ri.includeObject, err = parseIncludeObject(ri.query.Get("includeObject"))
	return err
}
