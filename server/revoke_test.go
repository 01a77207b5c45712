package server

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/storetest"
	nodejoin "github.com/bramble-edge/bramble/join"
)

const nodesPrefix = "/registry/core/nodes/"

// revokeEnv runs real servers, one after the other, on one data dir; the
// datastore revocation follows is wrapped in Faults.
type revokeEnv struct {
	t      *testing.T
	dir    string
	s      *Server
	faults *storetest.Faults
	mqtt   int // the running server's broker port
}

func (e *revokeEnv) start() {
	e.t.Helper()
	e.s = mustStartOnFreePorts(e.t, Config{DataDir: e.dir, WriteKubeconfig: filepath.Join(e.dir, "kubeconfig.yaml"),
		DisableScheduler: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		WrapStore: func(st datastore.Store) datastore.Store { e.faults = storetest.NewFaults(st); return e.faults }})
	e.mqtt = brokerPort(e.t, e.s)
}

// join joins node and registers its Node with its own certificate, as an
// agent does; it returns the node's TLS configuration.
func (e *revokeEnv) join(node string) *tls.Config {
	e.t.Helper()
	creds, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: e.s.URL, Token: e.s.Token, NodeName: node})
	if err != nil {
		e.t.Fatalf("join %s: %v", node, err)
	}
	tc, err := creds.TLSConfig()
	if err != nil {
		e.t.Fatal(err)
	}
	if code, body := e.call(tc, http.MethodPost, "/api/v1/nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"`+node+`"}}`); code != http.StatusCreated {
		e.t.Fatalf("%s registers its Node: got %d %s", node, code, body)
	}
	return tc
}

func (e *revokeEnv) admin() *tls.Config {
	certPEM, keyPEM := e.s.PKI.AdminCertPEM()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		e.t.Fatal(err)
	}
	return &tls.Config{RootCAs: e.s.PKI.CAPool(), Certificates: []tls.Certificate{pair}}
}

func (e *revokeEnv) call(tc *tls.Config, method, path, body string) (int, string) {
	e.t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest(method, e.s.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// connect opens an MQTT session as node; the error says why it failed.
func (e *revokeEnv) connect(node string, tc *tls.Config) (paho.Client, error) {
	c := paho.NewClient(paho.NewClientOptions().AddBroker("tls://127.0.0.1:" + strconv.Itoa(e.mqtt)).SetClientID(node).
		SetTLSConfig(tc).SetProtocolVersion(4).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	tok := c.Connect()
	if !tok.WaitTimeout(10 * time.Second) {
		return nil, errors.New("connect timed out")
	}
	return c, tok.Error()
}

// refused checks node's certificate is refused by the API and the broker.
func (e *revokeEnv) refused(node string, tc *tls.Config) {
	e.t.Helper()
	if code, body := e.call(tc, http.MethodGet, "/api/v1/nodes/"+node, ""); code != http.StatusUnauthorized {
		e.t.Errorf("%s's certificate at the API: got %d %s, want 401", node, code, body)
	}
	// The broker must answer and refuse: a dial that reaches no broker
	// (a port another test took, say) proves nothing.
	c, err := e.connect(node, tc)
	switch {
	case err == nil:
		c.Disconnect(0)
		e.t.Errorf("%s's certificate still connects to the broker", node)
	case !errors.Is(err, packets.ErrorRefusedNotAuthorised):
		e.t.Errorf("%s's certificate at the broker: got %v, want %v", node, err, packets.ErrorRefusedNotAuthorised)
	}
}

func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !waitUntil(15*time.Second, cond) {
		t.Fatalf("after 15s: %s", what)
	}
}

// waitUntil polls cond until it holds or d passes, and says which.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
