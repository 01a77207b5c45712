package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/viewers"
)

// Viewer credentials are revocable: a recorded one connects (two
// dashboards at once, dash/kitchen and dash/hall) and reads the API; an
// unrecorded one works until revoked by name; deleting drops the sessions
// within seconds and refuses the certificate at the broker and the API; a
// new credential for the name replaces the old one, and all of it
// outlives a restart.
func TestViewerCredentialsRevocable(t *testing.T) {
	e := &revokeEnv{t: t, dir: t.TempDir()}
	e.start()
	kc, err := auth.LoadKubeconfig(AdminKubeconfigPath(e.dir))
	if err != nil {
		t.Fatalf("the server's admin kubeconfig in its data dir: %v", err)
	}
	creds, err := viewers.NewClient(kc)
	if err != nil {
		t.Fatal(err)
	}
	dash := e.viewer(creds, "dash", true)
	eve := e.viewer(creds, "eve", false)
	kitchen, err := e.connectAs("dash/kitchen", dash)
	if err != nil {
		t.Fatalf("dash/kitchen connects: %v", err)
	}
	hall, err := e.connectAs("dash/hall", dash)
	if err != nil {
		t.Fatalf("dash/hall connects beside dash/kitchen: %v", err)
	}
	if code, body := e.call(dash, http.MethodGet, "/api/v1/namespaces/default/configmaps", ""); code != http.StatusOK {
		t.Fatalf("dash at the API: got %d %s, want 200", code, body)
	}
	// eve's credential was never recorded (made before records existed,
	// or through a CertificateSigningRequest): good until revoked by name.
	eveSession, err := e.connectAs("eve", eve)
	if err != nil {
		t.Fatalf("eve's unrecorded credential: %v", err)
	}
	if err := creds.Delete(context.Background(), "eve"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "eve's session dropped", func() bool { return !eveSession.IsConnectionOpen() })
	if c, err := e.connectAs("eve", eve); err == nil {
		c.Disconnect(0)
		t.Error("eve's revoked unrecorded credential connects to the broker")
	}
	eventually(t, "the API refuses eve's revoked credential", func() bool {
		code, _ := e.call(eve, http.MethodGet, "/api/v1/namespaces/default/configmaps", "")
		return code == http.StatusUnauthorized
	})
	list, err := creds.List(context.Background())
	if err != nil || len(list) != 2 || list[0].Name != "dash" || list[0].Revoked || list[1].Name != "eve" || !list[1].Revoked {
		t.Errorf("list: got %+v, %v; want dash active, eve revoked", list, err)
	}

	deleted := time.Now()
	if err := creds.Delete(context.Background(), "dash"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both dashboards' sessions dropped", func() bool { return !kitchen.IsConnectionOpen() && !hall.IsConnectionOpen() })
	t.Logf("sessions dropped %v after the deletion", time.Since(deleted).Round(time.Millisecond))
	if c, err := e.connectAs("dash/kitchen", dash); err == nil {
		c.Disconnect(0)
		t.Error("a deleted viewer credential still connects")
	}
	eventually(t, "the API refuses the deleted credential", func() bool {
		code, _ := e.call(dash, http.MethodGet, "/api/v1/namespaces/default/configmaps", "")
		return code == http.StatusUnauthorized
	})
	dash2 := e.viewer(creds, "dash", true)
	eventually(t, "a new credential for dash connects", func() bool {
		c, err := e.connectAs("dash", dash2)
		if err == nil {
			c.Disconnect(0)
		}
		return err == nil
	})
	if c, err := e.connectAs("dash", dash); err == nil {
		c.Disconnect(0)
		t.Error("the replaced credential still connects")
	}
	e.s.Stop() // the record outlives a restart
	e.start()
	if c, err := e.connectAs("dash", dash2); err != nil {
		t.Errorf("dash's recorded credential after a restart: %v", err)
	} else {
		c.Disconnect(0)
	}
	if c, err := e.connectAs("dash", dash); err == nil {
		c.Disconnect(0)
		t.Error("the replaced credential connects after a restart")
	}
}

// viewer issues viewer credentials for name from the cluster CA and, when
// record, records them as `bramble mqtt credentials create` does.
func (e *revokeEnv) viewer(c *viewers.Client, name string, record bool) *tls.Config {
	e.t.Helper()
	out := filepath.Join(e.t.TempDir(), name)
	if err := broker.CreateViewerCredentials(e.s.PKI, name, out, time.Hour); err != nil {
		e.t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(out, "client.crt"), filepath.Join(out, "client.key"))
	if err != nil {
		e.t.Fatal(err)
	}
	if record {
		data, _ := os.ReadFile(filepath.Join(out, "client.crt"))
		block, _ := pem.Decode(data)
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := c.Record(context.Background(), name, cert); err != nil {
			e.t.Fatal(err)
		}
	}
	return &tls.Config{RootCAs: e.s.PKI.CAPool(), Certificates: []tls.Certificate{pair}}
}

func (e *revokeEnv) connectAs(clientID string, tc *tls.Config) (paho.Client, error) {
	c := paho.NewClient(paho.NewClientOptions().AddBroker("tls://127.0.0.1:" + strconv.Itoa(e.mqtt)).SetClientID(clientID).
		SetTLSConfig(tc).SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	tok := c.Connect()
	if !tok.WaitTimeout(10 * time.Second) {
		return nil, context.DeadlineExceeded
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	e.t.Cleanup(func() { c.Disconnect(0) })
	return c, nil
}
