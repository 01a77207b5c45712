package bench

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/sys/unix"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// BenchmarkExec measures kubectl exec, port-forward and an interactive
// terminal against a server and a separate agent process (which dials the
// server for each stream), the requests going through the embedded
// broker. kubectl 1.33 (WebSocket) unless EXEC_BENCH_KUBECTL names
// another (e.g. /usr/lib/google-cloud-sdk/bin/kubectl.1.29 for SPDY).
//
//	go test -run '^$' -bench BenchmarkExec -benchtime 1x ./bench/
func BenchmarkExec(b *testing.B) {
	st := startAgentSetup(b, "bramble-bench-exec", "pi-bench-exec")
	web := strings.Replace(benchPod("web", st.node), `command: ["sleep", "3600"]`,
		`command: ["sh", "-c", "mkdir -p /www && head -c 52428800 /dev/zero > /www/big && exec httpd -f -p 8080 -h /www"]`, 1)
	for _, m := range []string{benchPod("box", st.node), web} {
		if _, errOut, err := st.s.Apply(m); err != nil {
			b.Fatalf("apply: %v: %s", err, errOut)
		}
	}
	for _, pod := range []string{"box", "web"} {
		cluster.WaitFor(b, 60*time.Second, func() bool {
			_, _, err := st.s.Kubectl("exec", pod, "--", "true")
			return err == nil
		}, pod+" to accept exec")
	}
	cluster.WaitFor(b, 60*time.Second, func() bool {
		_, _, err := st.s.Kubectl("exec", "web", "--", "sh", "-c", "wget -q -O /dev/null http://127.0.0.1:8080/none 2>&1 | grep -q 404")
		return err == nil
	}, "web to serve")
	bin := os.Getenv("EXEC_BENCH_KUBECTL")
	if bin == "" {
		bin = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
	}
	b.Run("exec-true", func(b *testing.B) { benchExecTrue(b, st, bin) })
	b.Run("exec-true-api", func(b *testing.B) { benchExecAPI(b, st) })
	b.Run("port-forward-50MiB", func(b *testing.B) { benchPortForward(b, st, bin) })
	b.Run("interactive-echo", func(b *testing.B) { benchEcho(b, st, bin) })
	b.Run("stuck-reader", func(b *testing.B) { benchStuckReader(b, st, bin) })
}

// benchExecTrue: `kubectl exec box -- true`, process start to exit.
func benchExecTrue(b *testing.B, st *agentSetup, bin string) {
	var took []time.Duration
	for range 50 {
		start := time.Now()
		if _, errOut, err := st.s.KubectlWith(bin, st.s.Kubeconfig, "", "exec", "box", "--", "true"); err != nil {
			b.Fatalf("kubectl exec: %v: %s", err, errOut)
		}
		took = append(took, time.Since(start))
	}
	var version []time.Duration // kubectl alone: its start and discovery, no stream
	for range 20 {
		start := time.Now()
		if _, _, err := st.s.KubectlWith(bin, st.s.Kubeconfig, "", "get", "pod", "box", "-o", "name"); err != nil {
			b.Fatal(err)
		}
		version = append(version, time.Since(start))
	}
	reportPercentiles(b, "exec", took)
	reportPercentiles(b, "get-pod", version)
}

// benchExecAPI: exec of true over the API's WebSocket (v5.channel.k8s.io)
// from a Go client: the stream's round trip without kubectl's own start.
func benchExecAPI(b *testing.B, st *agentSetup) {
	c := cluster.NewClient(b, st.s.Kubeconfig)
	u := strings.Replace(c.Base(), "https://", "wss://", 1) + "/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true&stderr=true"
	d := websocket.Dialer{TLSClientConfig: c.TLS(), Subprotocols: []string{"v5.channel.k8s.io"}}
	var took []time.Duration
	for range 100 {
		start := time.Now()
		conn, resp, err := d.Dial(u, nil)
		if err != nil {
			b.Fatalf("dial %s: %v (%v)", u, err, resp)
		}
		status := ""
		for status == "" {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				b.Fatalf("read: %v", err)
			}
			if len(msg) > 0 && msg[0] == 3 {
				status = string(msg[1:])
			}
		}
		took = append(took, time.Since(start))
		conn.Close()
		if !strings.Contains(status, `"Success"`) {
			b.Fatalf("exec true: status %s", status)
		}
	}
	reportPercentiles(b, "exec-api", took)
}

// benchPortForward: 50 MiB over kubectl port-forward, against the same
// GET straight to the pod's address.
func benchPortForward(b *testing.B, st *agentSetup, bin string) {
	port := porttest.Free(b)
	pf := exec.Command(bin, "port-forward", "pod/web", fmt.Sprintf("%d:8080", port))
	pf.Env = append(os.Environ(), "KUBECONFIG="+st.s.Kubeconfig, "HOME="+st.s.Home)
	if err := pf.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = pf.Process.Kill(); _ = pf.Wait() }()
	forwarded := fmt.Sprintf("http://127.0.0.1:%d/big", port)
	cluster.WaitFor(b, 30*time.Second, func() bool { _, err := fetch(forwarded); return err == nil }, "port-forward")
	ip, _, err := st.s.Kubectl("get", "pod", "web", "-o", "jsonpath={.status.podIP}")
	if err != nil || ip == "" {
		b.Fatalf("pod IP: %q %v", ip, err)
	}
	direct := fmt.Sprintf("http://%s/big", net.JoinHostPort(ip, "8080"))
	var viaPF, viaTCP float64
	for range 3 {
		viaPF = max(viaPF, mustFetch(b, forwarded))
		viaTCP = max(viaTCP, mustFetch(b, direct))
	}
	b.ReportMetric(viaPF, "pf-MB/s")
	b.ReportMetric(viaTCP, "direct-MB/s")
	b.ReportMetric(viaPF/viaTCP, "ratio")
}

func mustFetch(b *testing.B, url string) float64 {
	mbps, err := fetch(url)
	if err != nil {
		b.Fatalf("GET %s: %v", url, err)
	}
	return mbps
}

// fetch GETs url and returns MB/s (10^6 bytes) over the whole request.
func fetch(url string) (float64, error) {
	start := time.Now()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != 50<<20 {
		return 0, fmt.Errorf("%d bytes, %v", n, err)
	}
	return float64(n) / 1e6 / time.Since(start).Seconds(), nil
}

// benchEcho: a key typed into kubectl exec -it's terminal until the
// remote terminal's echo shows it.
func benchEcho(b *testing.B, st *agentSetup, bin string) {
	p := cluster.OpenPTY(b, 24, 80)
	cmd := exec.Command(bin, "exec", "-it", "box", "--", "sh")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+st.s.Kubeconfig, "HOME="+st.s.Home, "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, p.Slave, p.Slave
	cmd.SysProcAttr = p.Attrs()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	p.Type(b, "echo $((6*7))\r") // only the remote shell prints 42
	if _, ok := p.WaitFor(b, "42", 0, 30*time.Second); !ok {
		b.Fatalf("no shell: %q", p.Output())
	}
	time.Sleep(200 * time.Millisecond)
	tio, err := unix.IoctlGetTermios(int(p.Slave.Fd()), unix.TCGETS)
	if err != nil || tio.Lflag&unix.ECHO != 0 {
		b.Fatalf("the local terminal still echoes (kubectl did not make it raw): %v", err)
	}
	var took []time.Duration
	for i := range 200 {
		key := string(rune('a' + i%26))
		at := p.Len()
		start := time.Now()
		p.Type(b, key)
		if _, ok := p.WaitFor(b, key, at, 5*time.Second); !ok {
			b.Fatalf("key %q not echoed: %q", key, p.Output())
		}
		took = append(took, time.Since(start))
		time.Sleep(5 * time.Millisecond)
	}
	reportPercentiles(b, "echo", took)
}

func reportPercentiles(b *testing.B, name string, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), name+"-p50-ms")
	b.ReportMetric(ms(0.99), name+"-p99-ms")
	b.Logf("%s: %d samples, p50 %s ms, p99 %s ms", name, len(d), strconv.FormatFloat(ms(0.5), 'f', 1, 64), strconv.FormatFloat(ms(0.99), 'f', 1, 64))
}
