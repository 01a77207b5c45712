package manifests

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// What the deployer keeps of each file, in a ConfigMap in kube-system
// (kubectl -n kube-system get cm -l deploy.bramble.dev/record shows them).
const (
	RecordNamespace = "kube-system"
	RecordLabel     = "deploy.bramble.dev/record"
	// DeleteWithFile, set to "true" on an object in a manifest, opts that
	// object in to deletion when its file is removed (or when it is taken
	// out of the file). Objects without it stay.
	DeleteWithFile = "deploy.bramble.dev/delete-with-file"
)

// ref names one object a file applied.
type ref struct {
	APIVersion     string `json:"apiVersion"`
	Kind           string `json:"kind"`
	Namespace      string `json:"namespace,omitempty"`
	Name           string `json:"name"`
	DeleteWithFile bool   `json:"deleteWithFile,omitempty"`
}

func refOf(u *unstructured.Unstructured, ns string) ref {
	return ref{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: ns, Name: u.GetName(),
		DeleteWithFile: u.GetAnnotations()[DeleteWithFile] == "true"}
}

func (r ref) id() string { return r.APIVersion + "/" + r.Kind + "/" + key(r.Namespace, r.Name) }

// record is what was last applied from one file.
type record struct {
	File    string
	Hash    string // empty while the file has errors: it is tried again
	Error   string
	Objects []ref
}

var notName = regexp.MustCompile(`[^a-z0-9-]+`)

// recordName is a valid ConfigMap name for a file name, unique by a hash
// of the exact name.
func recordName(file string) string {
	h := fnv.New32a()
	h.Write([]byte(file))
	base := strings.Trim(notName.ReplaceAllString(strings.ToLower(file), "-"), "-")
	if len(base) > 40 {
		base = base[:40]
	}
	return fmt.Sprintf("manifest-%s-%08x", base, h.Sum32())
}

// loadRecords reads every file's record.
func loadRecords(ctx context.Context, reg *registry.Registry) (map[string]record, error) {
	sel, err := labels.Parse(RecordLabel)
	if err != nil {
		return nil, err
	}
	list, err := reg.List(ctx, api.MustLookup("", "v1", "configmaps"), RecordNamespace, registry.ListOptions{Labels: sel})
	if err != nil {
		return nil, fmt.Errorf("list manifest records: %w", err)
	}
	out := map[string]record{}
	for _, obj := range list.Items {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok || cm.Data["file"] == "" {
			continue
		}
		rec := record{File: cm.Data["file"], Hash: cm.Data["hash"], Error: cm.Data["error"]}
		if err := json.Unmarshal([]byte(cm.Data["objects"]), &rec.Objects); err != nil {
			return nil, fmt.Errorf("manifest record %s: objects: %w", cm.Name, err)
		}
		out[rec.File] = rec
	}
	return out, nil
}

// saveRecord applies rec's ConfigMap.
func saveRecord(ctx context.Context, reg *registry.Registry, rec record) error {
	objs, err := json.Marshal(rec.Objects)
	if err != nil {
		return err
	}
	data := map[string]string{"file": rec.File, "hash": rec.Hash, "objects": string(objs)}
	if rec.Error != "" {
		data["error"] = rec.Error
	}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": recordName(rec.File), "namespace": RecordNamespace,
			"labels": map[string]string{RecordLabel: "true"}},
		"data": data}
	body, err := json.Marshal(cm)
	if err != nil {
		return err
	}
	_, err = reg.Apply(ctx, api.MustLookup("", "v1", "configmaps"), RecordNamespace, recordName(rec.File), "", body,
		registry.WriteOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("save manifest record of %s: %w", rec.File, err)
	}
	return nil
}

// dropRecord deletes a removed file's record.
func dropRecord(ctx context.Context, reg *registry.Registry, file string) error {
	_, err := reg.Delete(ctx, api.MustLookup("", "v1", "configmaps"), RecordNamespace, recordName(file), nil)
	return ignoreNotFound(err)
}
