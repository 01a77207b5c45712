package overlay_test

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/network/overlay"
)

// BenchmarkPodToPodThroughput: TCP throughput from a pod address on node
// b to one on node a across vxlan.1, against the same between the two
// nodes' own addresses over the plain veth joining them. Two network
// namespaces, one Go sender and one receiver. Each op sends 32 MiB over
// each path in turn (so both see the same machine load) and the
// vxlan/veth ratio is reported with both rates.
func BenchmarkPodToPodThroughput(b *testing.B) {
	const total = 32 << 20
	na, nb := twoNodes(b, overlay.BackendVXLAN)
	na.reconcile(b, na, nb)
	nb.reconcile(b, na, nb)
	var veth, vxlan time.Duration
	b.ResetTimer()
	for range b.N {
		d, err := stream(nb, nb.ip, na, na.ip, total)
		if err != nil {
			b.Fatalf("veth: %v", err)
		}
		veth += d
		if d, err = stream(nb, nb.podIP, na, na.podIP, total); err != nil {
			b.Fatalf("vxlan: %v", err)
		}
		vxlan += d
	}
	mbps := func(d time.Duration) float64 { return float64(b.N) * total / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(veth), "veth-MB/s")
	b.ReportMetric(mbps(vxlan), "vxlan-MB/s")
	b.ReportMetric(veth.Seconds()/vxlan.Seconds(), "vxlan/veth")
}

// stream sends total bytes from src (bound to srcIP) to a receiver on
// dst that reads them all, and returns how long it took.
func stream(src *node, srcIP string, dst *node, dstIP string, total int) (time.Duration, error) {
	var ln net.Listener
	if err := dst.ns.Do(func() (err error) { ln, err = net.Listen("tcp4", dstIP+":0"); return err }); err != nil {
		return 0, err
	}
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		got <- n
	}()
	var conn net.Conn
	if err := src.ns.Do(func() (err error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(srcIP)}}
		conn, err = d.Dial("tcp4", ln.Addr().String())
		return err
	}); err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	start := time.Now()
	for sent := 0; sent < total; sent += len(buf) {
		if _, err := conn.Write(buf); err != nil {
			conn.Close()
			return 0, err
		}
	}
	conn.Close()
	if n := <-got; n != int64(total) {
		return 0, fmt.Errorf("receiver got %d bytes, want %d", n, total)
	}
	return time.Since(start), nil
}
