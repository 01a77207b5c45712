package servicealloc

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestClusterIPAllocatedFromRange(t *testing.T) {
	e := newEnv(t, Config{})
	s := e.mustCreate(t, svc("web", "", "", 80, 0))
	ip := netip.MustParseAddr(s.Spec.ClusterIP)
	if !netip.MustParsePrefix(DefaultServiceCIDR).Contains(ip) || len(s.Spec.ClusterIPs) != 1 || s.Spec.ClusterIPs[0] != ip.String() {
		t.Fatalf("got clusterIP %q clusterIPs %v, want one address in %s", s.Spec.ClusterIP, s.Spec.ClusterIPs, DefaultServiceCIDR)
	}
	if ip.As4()[2] == 0 {
		t.Fatalf("got %s from the static band 10.43.0.x, want the dynamic band first", ip)
	}
	if h := e.mustCreate(t, svc("headless", "", corev1.ClusterIPNone, 80, 0)); h.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Fatalf("headless got clusterIP %q, want None", h.Spec.ClusterIP)
	}
	ext := &corev1.Service{}
	ext.Name, ext.Namespace, ext.Spec.Type, ext.Spec.ExternalName = "ext", "default", corev1.ServiceTypeExternalName, "example.com"
	if x := e.mustCreate(t, ext); x.Spec.ClusterIP != "" {
		t.Fatalf("ExternalName got clusterIP %q, want none", x.Spec.ClusterIP)
	}
}

func TestRequestedIPHonouredAndClashRefused(t *testing.T) {
	e := newEnv(t, Config{})
	if s := e.mustCreate(t, svc("dns", "", "10.43.0.10", 53, 0)); s.Spec.ClusterIP != "10.43.0.10" {
		t.Fatalf("got %s, want the requested 10.43.0.10", s.Spec.ClusterIP)
	}
	_, err := e.create(t, svc("dns2", "", "10.43.0.10", 53, 0))
	wantInvalid(t, err, `spec.clusterIPs: Invalid value: []string{"10.43.0.10"}: failed to allocate IP 10.43.0.10: provided IP is already allocated`)
	_, err = e.create(t, svc("far", "", "10.0.0.5", 53, 0))
	wantInvalid(t, err, "provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.43.0.0/16")
	e.delete(t, "dns")
	if s := e.mustCreate(t, svc("dns2", "", "10.43.0.10", 53, 0)); s.Spec.ClusterIP != "10.43.0.10" {
		t.Fatalf("after delete got %s, want 10.43.0.10 again", s.Spec.ClusterIP)
	}
}

func TestConcurrentCreatesGetDistinctIPs(t *testing.T) {
	e := newEnv(t, smallCIDR(t, "10.96.0.0/26")) // 62 usable, 1 kept for the API
	const n = 40
	ips := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := e.create(t, svc(fmt.Sprintf("s%d", i), "", "", 80, 0))
			if err == nil {
				ips[i] = s.Spec.ClusterIP
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for i, ip := range ips {
		if errs[i] != nil {
			t.Fatalf("create s%d: %v", i, errs[i])
		}
		if j, dup := seen[ip]; dup {
			t.Fatalf("s%d and s%d both got %s", i, j, ip)
		}
		seen[ip] = i
	}
}

func TestExhaustionAndReuseAfterDelete(t *testing.T) {
	e := newEnv(t, smallCIDR(t, "10.96.0.0/29")) // .1-.6 usable, .1 kept for the API
	for i := 0; i < 5; i++ {
		e.mustCreate(t, svc(fmt.Sprintf("s%d", i), "", "", 80, 0))
	}
	_, err := e.create(t, svc("one-too-many", "", "", 80, 0))
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "failed to allocate a serviceIP: range is full") {
		t.Fatalf("got %v, want 500 range is full", err)
	}
	e.delete(t, "s3")
	if _, err := e.create(t, svc("one-too-many", "", "", 80, 0)); err != nil {
		t.Fatalf("after a delete: %v", err)
	}
	if s := e.mustCreate(t, svc("kubernetes", "", "10.96.0.1", 443, 0)); s.Spec.ClusterIP != "10.96.0.1" {
		t.Fatalf("the API's address asked for by hand: got %s", s.Spec.ClusterIP)
	}
}

func TestAllocationsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	e := openEnv(t, dir, smallCIDR(t, "10.96.0.0/29"))
	var held []string
	for i := 0; i < 3; i++ {
		held = append(held, e.mustCreate(t, svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeNodePort, "", 80, 0)).Spec.ClusterIP)
	}
	np := e.mustCreate(t, svc("np", corev1.ServiceTypeNodePort, "", 80, 30080))
	e.store.Close()
	e = openEnv(t, dir, smallCIDR(t, "10.96.0.0/29"))
	defer e.store.Close()
	_, err := e.create(t, svc("np2", corev1.ServiceTypeNodePort, "", 80, 30080))
	wantInvalid(t, err, "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated")
	last := e.mustCreate(t, svc("last", "", "", 80, 0)).Spec.ClusterIP
	for _, ip := range append(held, np.Spec.ClusterIP) {
		if ip == last {
			t.Fatalf("after restart %s was handed out again", ip)
		}
	}
}
