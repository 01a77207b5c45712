package join

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bramble-edge/bramble/durable"
)

// Files Save writes in the agent's directory (<data-dir>/agent).
const (
	CAFile   = "ca.crt"    // cluster CA, 0644
	CertFile = "node.crt"  // node certificate, 0644
	KeyFile  = "node.key"  // node private key, 0600
	InfoFile = "join.json" // server URL, node name, MQTT addresses, 0644
)

// Credentials are what a node holds after joining.
type Credentials struct {
	ServerURL     string
	NodeName      string
	CACertPEM     []byte // the cluster CA, or the bundle of a CA rotation
	CertPEM       []byte
	KeyPEM        []byte
	MQTTAddresses []string
	// NodePassword is the password the node joined with
	// (NodePasswordFile); empty when the directory has none.
	NodePassword string
}

// joinInfo is the content of InfoFile.
type joinInfo struct {
	ServerURL     string   `json:"serverURL"`
	NodeName      string   `json:"nodeName"`
	MQTTAddresses []string `json:"mqttAddresses"`
}

// credFile is one file Save writes.
type credFile struct {
	name string
	data []byte
	mode os.FileMode
}

// Save writes the credentials into dir (made 0700 if missing), each file
// atomically: the key first, the description (join.json) last.
func (c *Credentials) Save(dir string) error {
	if _, err := c.TLSConfig(); err != nil {
		return fmt.Errorf("save credentials: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save credentials: %w", err)
	}
	info, err := json.MarshalIndent(joinInfo{c.ServerURL, c.NodeName, c.MQTTAddresses}, "", "  ")
	if err != nil {
		return fmt.Errorf("save credentials: %w", err)
	}
	files := []credFile{
		{KeyFile, c.KeyPEM, 0o600},
		{CertFile, c.CertPEM, 0o644},
		{CAFile, c.CACertPEM, 0o644},
		{InfoFile, append(info, '\n'), 0o644},
	}
	if c.NodePassword != "" {
		files = append([]credFile{{NodePasswordFile, []byte(c.NodePassword + "\n"), 0o600}}, files...)
	}
	for _, f := range files {
		if err := durable.WriteFile(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return fmt.Errorf("save credentials: %w", err)
		}
	}
	// Some filesystems cannot fsync a folder (EINVAL); the files are synced.
	if err := durable.SyncDir(dir); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// LoadCredentials reads what Save wrote and checks it: the key must match
// the certificate, which must be signed by the CA and name the node. A node
// that never joined gets an error wrapping fs.ErrNotExist.
func LoadCredentials(dir string) (*Credentials, error) {
	if err := finishRenewal(dir); err != nil {
		return nil, fmt.Errorf("load node credentials: %w", err)
	}
	c := &Credentials{}
	var info joinInfo
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{CAFile, &c.CACertPEM}, {CertFile, &c.CertPEM}, {KeyFile, &c.KeyPEM}} {
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			return nil, fmt.Errorf("load node credentials: %w", err)
		}
		*f.dst = data
	}
	data, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		return nil, fmt.Errorf("load node credentials: %w", err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("load node credentials: %s: %w", filepath.Join(dir, InfoFile), err)
	}
	c.ServerURL, c.NodeName, c.MQTTAddresses = info.ServerURL, info.NodeName, info.MQTTAddresses
	if pw, err := os.ReadFile(filepath.Join(dir, NodePasswordFile)); err == nil {
		c.NodePassword = strings.TrimSpace(string(pw))
	}
	if _, err := c.TLSConfig(); err != nil {
		return nil, fmt.Errorf("load node credentials from %s: %w", dir, err)
	}
	return c, nil
}

// TLSConfig returns a client TLS configuration for mutual TLS with the API
// server and the MQTT broker: the node certificate, and the CAs of
// CACertPEM (the cluster CA, or the bundle of a CA rotation) as the only
// trusted roots (a Roots holder replaces them when they can change). It fails when the parts do not fit together.
func (c *Credentials) TLSConfig() (*tls.Config, error) {
	pair, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM)
	if err != nil {
		return nil, fmt.Errorf("node certificate and key: %w", err)
	}
	cas, err := ParseBundle(c.CACertPEM)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	if err := checkNodeCert(pair.Leaf, cas, c.NodeName, pair.Leaf.PublicKey); err != nil {
		return nil, fmt.Errorf("node certificate: %w", err)
	}
	roots := x509.NewCertPool()
	for _, ca := range cas {
		roots.AddCert(ca)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots, Certificates: []tls.Certificate{pair}}, nil
}

// Certificate returns the parsed node certificate.
func (c *Credentials) Certificate() (*x509.Certificate, error) { return parseLeaf(c.CertPEM) }

// encodeKey writes key as PKCS #8 PEM ("PRIVATE KEY").
func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("join: encode node key (%T): %w", key, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
