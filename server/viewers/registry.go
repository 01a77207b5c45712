// Package viewers keeps the record of viewer credentials (MQTT and API
// client certificates of O=bramble:viewers) so that they can be listed and
// revoked (`bramble mqtt credentials create|list|delete`). A viewer name
// with a record accepts only the certificate on record, or none once the
// record says revoked; a name without a record (credentials made before
// records existed, or through a CertificateSigningRequest) accepts any
// viewer certificate the CA signed, until it is revoked by name.
package viewers

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// Records are ConfigMaps kube-system/bramble-mqtt-viewer-<name>, labelled
// Label, holding the credential's serial (hex) and expiry, or RevokedKey.
const (
	Namespace  = "kube-system"
	NamePrefix = "bramble-mqtt-viewer-"
	Label      = "bramble.dev/mqtt-viewer"
	SerialKey  = "serial"
	ExpiryKey  = "notAfter"
	RevokedKey = "revoked" // "true": no certificate of the name is accepted
)

var configMaps = api.MustLookup("", "v1", "configmaps")

// ErrRevoked wraps every refusal of a viewer certificate.
var ErrRevoked = errors.New("viewer credential revoked")

// revokedSerial stands for a revoked name in the registry.
const revokedSerial = "revoked"

// Registry follows the records and answers Check from memory.
type Registry struct {
	mu       sync.RWMutex
	serials  map[string]string // viewer name -> serial of its current credential, or revokedSerial
	onRevoke func(name string)
	log      *slog.Logger
	f        *listwatch.Follower
}

// NewRegistry follows the records in store; onRevoke (optional) is told
// the name of a viewer whose record went away or was replaced.
func NewRegistry(store datastore.Store, onRevoke func(name string), log *slog.Logger) *Registry {
	if log == nil {
		log = slog.Default()
	}
	r := &Registry{serials: map[string]string{}, onRevoke: onRevoke, log: log}
	r.f = listwatch.New(store, recordPrefix(), handler{r}, listwatch.Config{Logger: log})
	return r
}

func recordPrefix() string { return configMaps.Prefix(Namespace) + NamePrefix }

// Start lists the records and follows them until Stop or ctx ends.
func (r *Registry) Start(ctx context.Context) error { return r.f.Start(ctx) }

// Stop ends the following and waits for it.
func (r *Registry) Stop() { r.f.Stop() }

// Check accepts the certificate of viewer name unless the name's record
// names another certificate or says revoked. It answers from memory.
func (r *Registry) Check(name string, cert *x509.Certificate) error {
	r.mu.RLock()
	serial, ok := r.serials[name]
	r.mu.RUnlock()
	switch {
	case !ok:
		return nil
	case serial == revokedSerial:
		return fmt.Errorf("%w: viewer %q's credentials were deleted (bramble mqtt credentials delete)", ErrRevoked, name)
	case serial != cert.SerialNumber.Text(16):
		return fmt.Errorf("%w: viewer %q's certificate %s was replaced by %s", ErrRevoked, name, cert.SerialNumber.Text(16), serial)
	}
	return nil
}

// set installs serials, telling onRevoke of every viewer whose record
// is new or changed (a record going away only re-admits certificates).
func (r *Registry) set(update func(m map[string]string)) {
	r.mu.Lock()
	before := make(map[string]string, len(r.serials))
	for k, v := range r.serials {
		before[k] = v
	}
	update(r.serials)
	var changed []string
	for name, serial := range r.serials {
		if before[name] != serial {
			changed = append(changed, name)
		}
	}
	r.mu.Unlock()
	for _, name := range changed {
		r.log.Info("viewer credential record changed", "viewer", name)
		if r.onRevoke != nil {
			r.onRevoke(name)
		}
	}
}

type handler struct{ r *Registry }

func (h handler) OnReplace(_ context.Context, l *listwatch.List) error {
	m := map[string]string{}
	err := l.Each(func(kv *datastore.KeyValue) {
		if name, serial, ok := decodeRecord(kv); ok {
			m[name] = serial
		}
	})
	if err != nil {
		return err
	}
	h.r.set(func(cur map[string]string) {
		clear(cur)
		for k, v := range m {
			cur[k] = v
		}
	})
	return nil
}

func (h handler) OnEvent(_ context.Context, ev *datastore.Event) {
	name := strings.TrimPrefix(ev.KV.Key, recordPrefix())
	if ev.Type == datastore.EventDelete {
		h.r.set(func(cur map[string]string) { delete(cur, name) })
		return
	}
	if n, serial, ok := decodeRecord(ev.KV); ok {
		h.r.set(func(cur map[string]string) { cur[n] = serial })
	}
}

// decodeRecord reads a record: the viewer's name and its serial.
func decodeRecord(kv *datastore.KeyValue) (string, string, bool) {
	obj, err := api.DecodeStored(configMaps, kv.Value, kv.ModRevision)
	if err != nil {
		return "", "", false
	}
	cm, ok := obj.(*corev1.ConfigMap)
	switch {
	case !ok:
		return "", "", false
	case cm.Data[RevokedKey] == "true":
		return strings.TrimPrefix(cm.Name, NamePrefix), revokedSerial, true
	case cm.Data[SerialKey] == "":
		return "", "", false
	}
	return strings.TrimPrefix(cm.Name, NamePrefix), cm.Data[SerialKey], true
}
