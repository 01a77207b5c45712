package endpoints

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/server/registry"
)

// slices prints the Service's managed slices, sorted: one
// "addr:ready/serving/terminating,...|ports" string per slice.
func (h *harness) slices(svc string) ([]*discoveryv1.EndpointSlice, string, error) {
	list, err := h.Registry.List(h.Ctx, endpointSlices, "default", registry.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	var got []*discoveryv1.EndpointSlice
	var lines []string
	for _, o := range list.Items {
		s := o.(*discoveryv1.EndpointSlice)
		if s.Labels[discoveryv1.LabelServiceName] != svc || s.Labels[discoveryv1.LabelManagedBy] != SliceComponent {
			continue
		}
		got = append(got, s)
		var eps []string
		for _, e := range s.Endpoints {
			eps = append(eps, fmt.Sprintf("%s:%v/%v/%v", e.Addresses[0], *e.Conditions.Ready, *e.Conditions.Serving, *e.Conditions.Terminating))
		}
		var ports []string
		for _, p := range s.Ports {
			ports = append(ports, fmt.Sprintf("%s=%d", *p.Name, *p.Port))
		}
		lines = append(lines, strings.Join(eps, ",")+"|"+strings.Join(ports, ","))
	}
	sort.Strings(lines)
	return got, strings.Join(lines, ";"), nil
}

func (h *harness) waitSlices(svc, want string) []*discoveryv1.EndpointSlice {
	h.T.Helper()
	var got []*discoveryv1.EndpointSlice
	h.Eventually(waitFor, func() error {
		s, line, err := h.slices(svc)
		if err != nil {
			return err
		}
		if line != want {
			return fmt.Errorf("slices of %s: got %q, want %q", svc, line, want)
		}
		got = s
		return nil
	})
	return got
}

func TestSlicesFollowPods(t *testing.T) {
	h := start(t)
	svc := h.service("web", map[string]string{"app": "web"}, corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromString("http")})
	h.waitSlices("web", "|") // one empty slice
	h.pod("a", "10.42.0.5", true)
	h.pod("b", "10.42.0.6", false)
	got := h.waitSlices("web", "10.42.0.5:true/true/false,10.42.0.6:false/false/false|http=8080")
	s := got[0]
	if !strings.HasPrefix(s.Name, "web-") || len(s.OwnerReferences) != 1 || s.OwnerReferences[0].UID != svc.UID ||
		s.AddressType != discoveryv1.AddressTypeIPv4 || s.Labels["team"] != "a" {
		t.Fatalf("got slice %s owners %v type %s labels %v", s.Name, s.OwnerReferences, s.AddressType, s.Labels)
	}
	if err := h.Client.Delete(h.Ctx, endpointSlices, "default", s.Name, controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitSlices("web", "10.42.0.5:true/true/false,10.42.0.6:false/false/false|http=8080") // written again
	svc.Spec.Selector = map[string]string{"app": "none"}
	if _, err := h.Client.Update(h.Ctx, svc); err != nil {
		t.Fatal(err)
	}
	h.waitSlices("web", "|")
}

func TestSlicesHoldAHundredEndpoints(t *testing.T) {
	h := start(t)
	h.service("big", map[string]string{"app": "web"}, corev1.ServicePort{Port: 80})
	var want []string
	for i := 0; i < 101; i++ {
		ip := fmt.Sprintf("10.42.%d.%d", i/100, 10+i%100)
		h.pod(fmt.Sprintf("p%d", i), ip, true)
		want = append(want, ip)
	}
	sort.Strings(want) // the controller orders addresses as strings
	for i := range want {
		want[i] += ":true/true/false"
	}
	first, last := strings.Join(want[:100], ","), strings.Join(want[100:], ",")
	lines := []string{first + "|=80", last + "|=80"}
	sort.Strings(lines)
	h.waitSlices("big", strings.Join(lines, ";"))
	if err := h.Client.Delete(h.Ctx, pods, "default", "p100", controllers.DeleteOptions{}); err != nil { // 10.42.1.10
		t.Fatal(err)
	}
	h.waitSlices("big", first+"|=80") // the second slice deleted
}
