package registry

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/bramble-edge/bramble/api"
)

const ingressManifest = `metadata: {name: web}
spec:
  rules:
  - host: a.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
`

func TestIngressAndNetworkPolicyRules(t *testing.T) {
	r := newTestRegistry(t)
	ing := api.MustLookup("networking.k8s.io", "v1", "ingresses")
	mustCreate(t, r, ing, ingressManifest)
	for _, tc := range []struct{ name, from, to, field string }{
		{"no rules", "  rules:\n", "  tls: []\n  rulez:\n", "either `defaultBackend` or `rules` must be specified"},
		{"path type", "pathType: Prefix, ", "", "spec.rules[0].http.paths[0].pathType: Required value"},
		{"relative", "path: /,", "path: web,", "spec.rules[0].http.paths[0].path"},
		{"ip host", "a.example.com", "10.0.0.1", "spec.rules[0].host"},
		{"port", "number: 80", "number: 0", "spec.rules[0].http.paths[0].backend.service.port.number"},
		{"service", "name: web, port", "name: Web_1, port", "spec.rules[0].http.paths[0].backend.service.name"},
	} {
		m := strings.Replace(ingressManifest, tc.from, tc.to, 1)
		if tc.name == "no rules" {
			m = "metadata: {name: web}\nspec: {}"
		}
		_, err := create(t, r, ing, m)
		wantInvalid(t, tc.name, err, tc.field)
	}
	ic := api.MustLookup("networking.k8s.io", "v1", "ingressclasses")
	cls := mustCreate(t, r, ic, "metadata: {name: traefik}\nspec: {controller: traefik.io/ingress-controller}").(*networkingv1.IngressClass)
	wantInvalid(t, "controller change", update(t, r, ic, cls, func(o *networkingv1.IngressClass) { o.Spec.Controller = "example.com/other" }),
		"spec.controller: Invalid value")
	_, err := create(t, r, ic, "metadata: {name: bad}\nspec: {controller: no-domain}")
	wantInvalid(t, "controller", err, "spec.controller")

	np := api.MustLookup("networking.k8s.io", "v1", "networkpolicies")
	pol := mustCreate(t, r, np, "metadata: {name: p}\nspec:\n  podSelector: {}\n  egress: [{ports: [{port: 53}]}]").(*networkingv1.NetworkPolicy)
	if got := pol.Spec.PolicyTypes; len(got) != 2 || got[1] != networkingv1.PolicyTypeEgress || *pol.Spec.Egress[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Fatalf("got policyTypes %v protocol %v, want [Ingress Egress] and TCP", got, pol.Spec.Egress[0].Ports[0].Protocol)
	}
	_, err = create(t, r, np, "metadata: {name: q}\nspec:\n  podSelector: {}\n  ingress: [{from: [{ipBlock: {cidr: 10.0.0.0/8, except: [192.168.0.0/16]}}]}]")
	wantInvalid(t, "except", err, "spec.ingress[0].from[0].ipBlock.except[0]")
	_, err = create(t, r, np, "metadata: {name: q}\nspec:\n  podSelector: {}\n  ingress: [{ports: [{port: 8080, endPort: 80}]}]")
	wantInvalid(t, "endPort", err, "spec.ingress[0].ports[0].endPort")
}

func TestStorageKinds(t *testing.T) {
	r := newTestRegistry(t)
	scRes := api.MustLookup("storage.k8s.io", "v1", "storageclasses")
	sc := mustCreate(t, r, scRes, "metadata: {name: local}\nprovisioner: rancher.io/local-path").(*storagev1.StorageClass)
	if *sc.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete || *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate {
		t.Fatalf("got reclaim %v binding %v, want Delete and Immediate", *sc.ReclaimPolicy, *sc.VolumeBindingMode)
	}
	wantInvalid(t, "provisioner change", update(t, r, scRes, sc, func(o *storagev1.StorageClass) { o.Provisioner = "example.com/nfs" }),
		"provisioner: Forbidden: updates to provisioner are forbidden.")
	wantInvalid(t, "parameters change", update(t, r, scRes, sc, func(o *storagev1.StorageClass) { o.Parameters = map[string]string{"a": "b"} }),
		"parameters: Forbidden")
	_, err := create(t, r, scRes, "metadata: {name: bad}\nprovisioner: rancher.io/local-path\nvolumeBindingMode: Later")
	wantInvalid(t, "binding mode", err, "volumeBindingMode")

	drv := mustCreate(t, r, api.MustLookup("storage.k8s.io", "v1", "csidrivers"), "metadata: {name: csi.example.com}\nspec: {}").(*storagev1.CSIDriver)
	if !*drv.Spec.AttachRequired || *drv.Spec.PodInfoOnMount || *drv.Spec.FSGroupPolicy != storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy {
		t.Fatalf("got CSIDriver spec %+v, want upstream's defaults", drv.Spec)
	}
	wantInvalid(t, "attachRequired change", update(t, r, api.MustLookup("storage.k8s.io", "v1", "csidrivers"), drv,
		func(o *storagev1.CSIDriver) { o.Spec.AttachRequired = ptr(false) }), "spec.attachRequired: Invalid value")
	if err := update(t, r, api.MustLookup("storage.k8s.io", "v1", "csidrivers"), drv,
		func(o *storagev1.CSIDriver) { o.Spec.FSGroupPolicy = ptr(storagev1.FileFSGroupPolicy) }); err != nil {
		t.Fatalf("fsGroupPolicy change (mutable since 1.29): %v", err)
	}
	csiNodes := api.MustLookup("storage.k8s.io", "v1", "csinodes")
	_, err = create(t, r, csiNodes, "metadata: {name: n1}\nspec: {drivers: [{name: csi.example.com, nodeID: a}, {name: csi.example.com, nodeID: b}]}")
	wantInvalid(t, "duplicate driver", err, "spec.drivers[1].name: Duplicate value")
	node := mustCreate(t, r, csiNodes, "metadata: {name: n2}\nspec: {drivers: [{name: csi.example.com, nodeID: a}]}").(*storagev1.CSINode)
	wantInvalid(t, "nodeID change", update(t, r, csiNodes, node, func(o *storagev1.CSINode) { o.Spec.Drivers[0].NodeID = "b" }),
		"spec.drivers[0].nodeID")
	vaRes := api.MustLookup("storage.k8s.io", "v1", "volumeattachments")
	va := mustCreate(t, r, vaRes, "metadata: {name: va}\nspec: {attacher: csi.example.com, nodeName: n1, source: {persistentVolumeName: pv1}}").(*storagev1.VolumeAttachment)
	wantInvalid(t, "node change", update(t, r, vaRes, va, func(o *storagev1.VolumeAttachment) { o.Spec.NodeName = "n2" }), "spec: Invalid value")
	_, err = create(t, r, vaRes, "metadata: {name: vb}\nspec: {attacher: csi.example.com, nodeName: n1, source: {}}")
	wantInvalid(t, "no source", err, "spec.source")
}
