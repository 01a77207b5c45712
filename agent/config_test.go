package agent

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	body := "server: https://10.0.0.1:6443\nnode-label: [a=b, c=d]\nheartbeat-interval: 5s\ndebug: true\n" +
		"write-kubeconfig-mode: 0644\nimage-gc-high-threshold: 1000000\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadConfigFile(path, false)
	if err != nil {
		t.Fatalf("ReadConfigFile: %v", err)
	}
	want := map[string][]string{"server": {"https://10.0.0.1:6443"}, "node-label": {"a=b", "c=d"},
		"heartbeat-interval": {"5s"}, "debug": {"true"}, "write-kubeconfig-mode": {"0644"}, "image-gc-high-threshold": {"1000000"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if keys := SortedKeys(got); strings.Join(keys, ",") != "debug,heartbeat-interval,image-gc-high-threshold,node-label,server,write-kubeconfig-mode" {
		t.Errorf("SortedKeys: got %v", keys)
	}
}

func TestReadConfigFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if m, err := ReadConfigFile(missing, true); err != nil || m != nil {
		t.Errorf("optional missing file: got %v, %v, want nothing", m, err)
	}
	if _, err := ReadConfigFile(missing, false); err == nil {
		t.Errorf("named missing file: got no error, want one")
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("node-label: {a: b}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfigFile(path, false); err == nil || !strings.Contains(err.Error(), "node-label") {
		t.Errorf("a map value: got %v, want an error naming node-label", err)
	}
	if err := os.WriteFile(path, []byte("- just\n- a list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfigFile(path, false); err == nil || !strings.Contains(err.Error(), "mapping") {
		t.Errorf("a list file: got %v, want an error asking for a mapping", err)
	}
}

func TestConfigDefaultsAndChecks(t *testing.T) {
	c := Config{}
	if err := c.setDefaults(); err != nil {
		t.Fatal(err)
	}
	if c.DataDir != DefaultDataDir || c.ContainerdNamespace != "bramble" || c.HeartbeatInterval != DefaultHeartbeatInterval {
		t.Errorf("defaults: got %+v", c)
	}
	for _, bad := range []Config{{ServerURL: "http://x:6443"}, {ServerURL: "x"}, {HeartbeatInterval: 1}} {
		if err := bad.setDefaults(); err == nil {
			t.Errorf("%+v: got no error, want one", bad)
		}
	}
	if err := (&Config{DataDir: "/srv/a,b"}).setDefaults(); err == nil || !strings.Contains(err.Error(), "--data-dir") || !strings.Contains(err.Error(), "comma") {
		t.Errorf("a data dir with a comma: got %v, want an error naming --data-dir and the comma", err)
	}
	c = Config{RuntimeEndpoint: "unix:///run/x.sock"}
	if err := c.setDefaults(); err != nil || c.RuntimeEndpoint != "/run/x.sock" {
		t.Errorf("unix:// endpoint: got %q, %v", c.RuntimeEndpoint, err)
	}
}

// FuzzParseConfig: any file gives values or an error, never a panic, and
// every scalar comes back as written.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{"server: https://a:6443\nnode-label: [a=b]\n", "mode: 0644\nn: 1000000\n",
		"a: &x 1\nb: *x\n", "- a\n", "a: {b: c}\n", "", "a: [[1]]\n", "a:\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseConfig(data)
		if err == nil && m == nil {
			t.Fatal("no error and no map")
		}
	})
}
