package e2e

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestPrometheusScrape runs Debian's prometheus against a real server (its
// /metrics with --metrics-token) and a real agent process through the node
// proxy (/metrics and /metrics/cadvisor with the admin's client
// certificate, over the agent's own MQTT connection), then asks its HTTP
// API for the series a dashboard would draw.
func TestPrometheusScrape(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus is not installed (apt-get install prometheus; hack/deps.sh installs it)")
	}
	const node, ns, token = "pi-prom-e2e", "bramble-e2e-prom", "scrape-token-0123456789"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t, "--metrics-token", token)
	a := cluster.StartAgent(t, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node)
	a.WaitReady(t, s, node)
	a.ImportBusybox(t, d, ns, "docker.io/library/busybox:e2e-agent")
	if _, stderr, err := s.Apply(agentPod(node)); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool { return cluster.RunningTasks(t, d, ns) == 1 }, "the pod to run")
	dir := t.TempDir()
	creds := writeAdminCreds(t, s.Kubeconfig, dir)
	api := startPrometheus(t, bin, dir, scrapeConfig(s.URL(), node, token, creds))
	for _, q := range []string{
		`up{job="bramble-server"} == 1`,
		`up{job="bramble-node"} == 1`,
		`up{job="bramble-cadvisor"} == 1`,
		`apiserver_request_total{job="bramble-server",resource="nodes",verb="get",code="200"}`,
		`bramble_datastore_fsync_duration_seconds_count{job="bramble-server"} > 0`,
		`bramble_agent_pods{job="bramble-node",phase="Running"} == 1`,
		`bramble_agent_container_starts_total{job="bramble-node"} >= 1`,
		`container_cpu_usage_seconds_total{job="bramble-cadvisor",namespace="default",pod="hello",container="main"}`,
		`container_memory_working_set_bytes{job="bramble-cadvisor",namespace="default",pod="hello",container="main"} > 0`,
	} {
		cluster.WaitFor(t, 45*time.Second, func() bool { return promQuery(t, api, q) > 0 }, "a PromQL answer to "+q)
	}
	// What a scrape costs, for docs/OBSERVABILITY.md (the node jobs
	// include the MQTT round trip to the agent).
	t.Logf("scrape_duration_seconds, max over the run: %s", promValues(t, api, `max_over_time(scrape_duration_seconds[5m])`))
	t.Logf("scrape_samples_scraped: %s", promValues(t, api, `scrape_samples_scraped`))
}

// adminCreds are the files the scrape config names.
type adminCreds struct{ ca, cert, key string }

// writeAdminCreds copies the kubeconfig's CA and client certificate to dir.
func writeAdminCreds(t *testing.T, kubeconfig, dir string) adminCreds {
	raw, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var kc struct {
		Clusters []struct {
			Cluster struct {
				CA string `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			User struct {
				Cert string `json:"client-certificate-data"`
				Key  string `json:"client-key-data"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(raw, &kc); err != nil || len(kc.Clusters) == 0 || len(kc.Users) == 0 {
		t.Fatalf("kubeconfig %s: %v", kubeconfig, err)
	}
	c := adminCreds{filepath.Join(dir, "ca.crt"), filepath.Join(dir, "admin.crt"), filepath.Join(dir, "admin.key")}
	for path, b64 := range map[string]string{c.ca: kc.Clusters[0].Cluster.CA, c.cert: kc.Users[0].User.Cert, c.key: kc.Users[0].User.Key} {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(b) == 0 {
			t.Fatalf("kubeconfig %s: %s: %v", kubeconfig, filepath.Base(path), err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
