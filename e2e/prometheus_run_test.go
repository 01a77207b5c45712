package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// scrapeConfig is docs/OBSERVABILITY.md's configuration for one server
// and one node, scraping every second.
func scrapeConfig(serverURL, node, token string, c adminCreds) string {
	u, _ := url.Parse(serverURL)
	target := fmt.Sprintf("static_configs: [{targets: [%q]}]", u.Host)
	tlsCert := fmt.Sprintf("tls_config: {ca_file: %q, cert_file: %q, key_file: %q}", c.ca, c.cert, c.key)
	return fmt.Sprintf(`global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
- job_name: bramble-server
  scheme: https
  tls_config: {ca_file: %q}
  authorization: {credentials: %q}
  %s
- job_name: bramble-node
  scheme: https
  metrics_path: /api/v1/nodes/%s/proxy/metrics
  %s
  %s
- job_name: bramble-cadvisor
  scheme: https
  metrics_path: /api/v1/nodes/%s/proxy/metrics/cadvisor
  %s
  %s
`, c.ca, token, target, node, tlsCert, target, node, tlsCert, target)
}

// startPrometheus runs prometheus on loopback (a free port), with its
// data in dir, until the test ends; it returns its base URL.
func startPrometheus(t *testing.T, bin, dir, config string) string {
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(porttest.Free(t)))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+addr, "--log.level=warn")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus output:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	cluster.WaitFor(t, 30*time.Second, func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, "prometheus to be ready")
	return base
}

// promQuery runs an instant query and returns how many series answered.
func promQuery(t *testing.T, base, q string) int {
	return len(promResult(t, base, q))
}

// promValues is an instant query's answer as "job=value" pairs.
func promValues(t *testing.T, base, q string) string {
	var out []string
	for _, raw := range promResult(t, base, q) {
		var r struct {
			Metric map[string]string `json:"metric"`
			Value  []any             `json:"value"`
		}
		if err := json.Unmarshal(raw, &r); err == nil && len(r.Value) == 2 {
			out = append(out, fmt.Sprintf("%s=%v", r.Metric["job"], r.Value[1]))
		}
	}
	return strings.Join(out, " ")
}

func promResult(t *testing.T, base, q string) []json.RawMessage {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Logf("query %s: %v", q, err)
		return nil
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "success" {
		t.Fatalf("query %s: HTTP %d, %v %s", q, resp.StatusCode, err, out.Error)
	}
	return out.Data.Result
}
