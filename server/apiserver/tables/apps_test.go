package tables

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
)

// cellsOf renders one object of resource r and returns its row's cells.
func cellsOf(t *testing.T, r *api.Resource, manifest string) string {
	t.Helper()
	obj, _, err := api.DecodeYAML(r, []byte(manifest), true)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	api.Default(obj)
	tbl, err := Table(r, []api.Object{obj}, Options{Now: time.Now()})
	if err != nil {
		t.Fatalf("table: %v", err)
	}
	out := make([]string, len(tbl.Rows[0].Cells))
	for i, c := range tbl.Rows[0].Cells {
		out[i] = fmt.Sprint(c)
	}
	return strings.Join(out, "|")
}

func TestNewKindsCells(t *testing.T) {
	hpaV1 := api.MustLookup("autoscaling", "v1", "horizontalpodautoscalers")
	hpaV2 := api.MustLookup("autoscaling", "v2", "horizontalpodautoscalers")
	for _, tc := range []struct {
		res            *api.Resource
		manifest, want string
	}{
		{hpaV1, "metadata: {name: h}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 4, targetCPUUtilizationPercentage: 50}\nstatus: {currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 31}",
			"h|Deployment/web|cpu: 31%/50%|1|4|2|<unknown>"},
		{hpaV2, `metadata: {name: h}
spec:
  scaleTargetRef: {kind: StatefulSet, name: db}
  maxReplicas: 3
  metrics:
  - {type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}}
  - {type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "10"}}}
  - {type: External, external: {metric: {name: q}, target: {type: Value, value: "5"}}}`,
			"h|StatefulSet/db|memory: <unknown>/100Mi, <unknown>/10 + 1 more...|1|3|0|<unknown>"},
		{api.MustLookup("networking.k8s.io", "v1", "ingresses"), `metadata: {name: i}
spec:
  tls: [{hosts: [a.example.com]}]
  rules: [{host: a.example.com}, {host: b.example.com}, {host: c.example.com}, {host: d.example.com}]
status: {loadBalancer: {ingress: [{ip: 192.168.100.200}, {ip: 192.168.100.201}]}}`,
			"i|<none>|a.example.com,b.example.com,c.example.com + 1 more...|192.168.100.2...|80, 443|<unknown>"},
		{api.MustLookup("storage.k8s.io", "v1", "storageclasses"),
			"metadata: {name: sc, annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}}\nprovisioner: rancher.io/local-path",
			"sc (default)|rancher.io/local-path|Delete|Immediate|false|<unknown>"},
		{api.MustLookup("apps", "v1", "controllerrevisions"),
			"metadata: {name: db-1, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u, controller: true}]}\nrevision: 2\ndata: {}",
			"db-1|statefulset.apps/db|2|<unknown>"},
		{api.MustLookup("batch", "v1", "cronjobs"),
			"metadata: {name: c}\nspec: {schedule: \"@daily\", timeZone: Europe/Berlin, jobTemplate: {spec: {template: {spec: {containers: [{name: a, image: busybox}]}}}}}",
			"c|@daily|Europe/Berlin|False|0|<none>|<unknown>|a|busybox|<none>"},
	} {
		if got := cellsOf(t, tc.res, tc.manifest); got != tc.want {
			t.Errorf("%s: got cells %q, want %q", tc.res.Kind, got, tc.want)
		}
	}
}
