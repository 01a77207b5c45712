package manifests

import (
	"context"
	"fmt"
	"strings"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// outcome collects what one pass did with one file.
type outcome struct {
	wanted  []ref           // every object the file names now
	applied map[string]bool // ids of those applied in this pass
	errs    []string
	badDocs bool // some document could not be read: its object is unknown
}

func (o *outcome) add(doc Doc, r ref, err error) {
	if doc.Obj == nil {
		o.badDocs = true
	} else {
		o.wanted = append(o.wanted, r)
	}
	if err != nil {
		o.errs = append(o.errs, fmt.Sprintf("%s: %v", doc.where(), err))
		return
	}
	if o.applied == nil {
		o.applied = map[string]bool{}
	}
	o.applied[r.id()] = true
}

func (o *outcome) decodeOK() bool { return !o.badDocs }

// record is the file's new record: the objects it names that exist (now
// applied, or applied before), and its hash only when all went well.
func (o *outcome) record(f File, prev record) record {
	before := map[string]bool{}
	for _, r := range prev.Objects {
		before[r.id()] = true
	}
	rec := record{File: f.Name, Error: strings.Join(o.errs, "\n")}
	for _, r := range o.wanted {
		if o.applied[r.id()] || before[r.id()] {
			rec.Objects = append(rec.Objects, r)
		}
	}
	if o.badDocs { // keep what may still be in the file
		rec.Objects = append(rec.Objects, missing(prev.Objects, rec.Objects)...)
	}
	if len(o.errs) == 0 {
		rec.Hash = f.Hash
	}
	return rec
}

// missing lists the refs of from that are not in have.
func missing(from, have []ref) []ref {
	in := map[string]bool{}
	for _, r := range have {
		in[r.id()] = true
	}
	var out []ref
	for _, r := range from {
		if !in[r.id()] {
			out = append(out, r)
		}
	}
	return out
}

// apply server-side applies one document under FieldManager, forcing
// ownership (the file is the source of truth) and with strict field
// validation (a misspelt field is an error naming it).
func (d *Deployer) apply(ctx context.Context, doc Doc) (ref, error) {
	if doc.Err != nil {
		return ref{}, doc.Err
	}
	res, ok := d.lookup(doc.Obj.GetAPIVersion(), doc.Obj.GetKind())
	if !ok {
		return refOf(doc.Obj, doc.Obj.GetNamespace()), fmt.Errorf("the server does not serve kind %s in %s", doc.Obj.GetKind(), doc.Obj.GetAPIVersion())
	}
	ns := ""
	if res.Namespaced {
		if ns = doc.Obj.GetNamespace(); ns == "" {
			ns = "default"
		}
	}
	r := refOf(doc.Obj, ns)
	body, err := doc.Obj.MarshalJSON()
	if err != nil {
		return r, err
	}
	_, err = d.reg.Apply(ctx, res, ns, r.Name, "", body,
		registry.WriteOptions{FieldManager: FieldManager, Force: true, FieldValidation: registry.ValidationStrict})
	return r, err
}

// lookup finds the served resource of an apiVersion and kind.
func (d *Deployer) lookup(apiVersion, kind string) (*api.Resource, bool) {
	for _, res := range d.reg.Kinds().All() {
		if res.APIVersion() == apiVersion && res.Kind == kind {
			return res, true
		}
	}
	return nil, false
}

// prune deletes the objects of prev that opted in with DeleteWithFile
// and are not among keep.
func (d *Deployer) prune(ctx context.Context, prev, keep []ref) []string {
	var errs []string
	for _, r := range missing(prev, keep) {
		if !r.DeleteWithFile {
			continue
		}
		res, ok := d.lookup(r.APIVersion, r.Kind)
		if !ok {
			continue // its kind is gone, and its objects with it
		}
		_, err := d.reg.Delete(ctx, res, r.Namespace, r.Name, nil)
		if err = ignoreNotFound(err); err != nil {
			errs = append(errs, fmt.Sprintf("delete %s %s: %v", r.Kind, key(r.Namespace, r.Name), err))
			continue
		}
		d.cfg.Log.Info("manifest object deleted", "kind", r.Kind, "object", key(r.Namespace, r.Name))
	}
	return errs
}

// finish logs a file's outcome when it is new or changed, and saves it.
func (d *Deployer) finish(ctx context.Context, rec, prev record) error {
	switch {
	case rec.Error == "":
		d.cfg.Log.Info("manifest applied", "file", rec.File, "objects", len(rec.Objects))
	case rec.Error != prev.Error:
		for _, line := range strings.Split(rec.Error, "\n") {
			d.cfg.Log.Error("manifest not applied", "file", rec.File, "err", line)
		}
	}
	return saveRecord(ctx, d.reg, rec)
}
