package auth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/durable"

	"sigs.k8s.io/yaml"
)

// Kubeconfig is the part of a kubectl configuration file bramble writes and
// reads: clusters with embedded CA data, users with embedded client
// certificates or a token, contexts and the current context. Paths to files
// (certificate-authority, client-certificate) are not supported.
type Kubeconfig struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	Clusters       []NamedCluster `json:"clusters"`
	Contexts       []NamedContext `json:"contexts"`
	Users          []NamedUser    `json:"users"`
	CurrentContext string         `json:"current-context"`
}

// NamedCluster is one entry of Kubeconfig.Clusters.
type NamedCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server                   string `json:"server"`
		CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	} `json:"cluster"`
}

// NamedContext is one entry of Kubeconfig.Contexts.
type NamedContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

// NamedUser is one entry of Kubeconfig.Users.
type NamedUser struct {
	Name string `json:"name"`
	User struct {
		ClientCertificateData []byte `json:"client-certificate-data,omitempty"`
		ClientKeyData         []byte `json:"client-key-data,omitempty"`
		Token                 string `json:"token,omitempty"`
	} `json:"user"`
}

// KubeconfigName names the cluster, context and user of the kubeconfigs
// bramble writes, as k3s does.
const KubeconfigName = "default"

// NewKubeconfig returns a kubeconfig with one cluster, context and user, all
// named "default": the server at serverURL trusted through caPEM, and a user
// holding either a client certificate and key or a token.
func NewKubeconfig(serverURL string, caPEM, certPEM, keyPEM []byte, token string) *Kubeconfig {
	kc := &Kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: KubeconfigName}
	var c NamedCluster
	c.Name = KubeconfigName
	c.Cluster.Server = serverURL
	c.Cluster.CertificateAuthorityData = caPEM
	var x NamedContext
	x.Name = KubeconfigName
	x.Context.Cluster, x.Context.User = KubeconfigName, KubeconfigName
	var u NamedUser
	u.Name = KubeconfigName
	u.User.ClientCertificateData, u.User.ClientKeyData, u.User.Token = certPEM, keyPEM, token
	kc.Clusters, kc.Contexts, kc.Users = []NamedCluster{c}, []NamedContext{x}, []NamedUser{u}
	return kc
}

// ParseKubeconfig decodes a kubeconfig in YAML or JSON.
func ParseKubeconfig(data []byte) (*Kubeconfig, error) {
	var kc Kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, fmt.Errorf("parse kubeconfig: %w", err)
	}
	return &kc, nil
}

// LoadKubeconfig reads and parses the kubeconfig at path.
func LoadKubeconfig(path string) (*Kubeconfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	kc, err := ParseKubeconfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return kc, nil
}

// Current returns the cluster and user the current context names.
func (kc *Kubeconfig) Current() (*NamedCluster, *NamedUser, error) {
	if kc.CurrentContext == "" {
		return nil, nil, errors.New("kubeconfig: current-context is not set")
	}
	var ctxEntry *NamedContext
	for i := range kc.Contexts {
		if kc.Contexts[i].Name == kc.CurrentContext {
			ctxEntry = &kc.Contexts[i]
		}
	}
	if ctxEntry == nil {
		return nil, nil, fmt.Errorf("kubeconfig: current-context %q names no context", kc.CurrentContext)
	}
	var cluster *NamedCluster
	for i := range kc.Clusters {
		if kc.Clusters[i].Name == ctxEntry.Context.Cluster {
			cluster = &kc.Clusters[i]
		}
	}
	var user *NamedUser
	for i := range kc.Users {
		if kc.Users[i].Name == ctxEntry.Context.User {
			user = &kc.Users[i]
		}
	}
	if cluster == nil || user == nil {
		return nil, nil, fmt.Errorf("kubeconfig: context %q names cluster %q and user %q; one of them is missing",
			ctxEntry.Name, ctxEntry.Context.Cluster, ctxEntry.Context.User)
	}
	return cluster, user, nil
}

// WriteFile writes kc to path with mode, creating parent directories
// (0755). The file is replaced atomically and chmod'ed to mode even when it
// already existed.
func (kc *Kubeconfig) WriteFile(path string, mode os.FileMode) error {
	data, err := yaml.Marshal(kc)
	if err != nil {
		return fmt.Errorf("encode kubeconfig: %w", err)
	}
	if err := WriteFileAtomic(path, data, mode); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return SyncDir(filepath.Dir(path))
}

// WriteUserKubeconfig writes a kubeconfig (mode 0600) for a user token: the
// server at serverURL, trusted through caPEM, and the bearer token.
func WriteUserKubeconfig(path, serverURL string, caPEM []byte, token string) error {
	return NewKubeconfig(serverURL, caPEM, nil, nil, token).WriteFile(path, 0o600)
}

// WriteFileAtomic creates path's folder (0755) if needed and writes data
// with durable.WriteFile. Call SyncDir afterwards for the rename to survive
// a power cut.
func WriteFileAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return durable.WriteFile(path, data, mode)
}

// SyncDir makes the renames WriteFileAtomic did in dir durable; one call
// covers several files.
func SyncDir(dir string) error { return durable.SyncDir(dir) }
