package nodeinfo

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseReserved(t *testing.T) {
	tests := []struct {
		in      string
		want    map[corev1.ResourceName]string
		wantErr string
	}{
		{in: "", want: map[corev1.ResourceName]string{}},
		{in: "cpu=250m,memory=256Mi", want: map[corev1.ResourceName]string{"cpu": "250m", "memory": "256Mi"}},
		{in: " cpu = 1 , ephemeral-storage=1Gi", want: map[corev1.ResourceName]string{"cpu": "1", "ephemeral-storage": "1Gi"}},
		{in: "cpu", wantErr: `"cpu": want name=quantity`},
		{in: "gpu=1", wantErr: `"gpu": want cpu, memory or ephemeral-storage`},
		{in: "pods=10", wantErr: `"pods": want cpu`},
		{in: "cpu=1,cpu=2", wantErr: "cpu is given twice"},
		{in: "memory=lots", wantErr: `memory="lots"`},
		{in: "memory=-1Gi", wantErr: "must not be negative"},
		{in: "cpu=1,", wantErr: `"": want name=quantity`},
	}
	for _, tt := range tests {
		got, err := ParseReserved(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "--system-reserved") {
				t.Errorf("ParseReserved(%q): got error %v, want one containing --system-reserved and %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseReserved(%q): %v", tt.in, err)
			continue
		}
		gotS := map[corev1.ResourceName]string{}
		for k, q := range got {
			gotS[k] = q.String()
		}
		if !reflect.DeepEqual(gotS, tt.want) {
			t.Errorf("ParseReserved(%q): got %v, want %v", tt.in, gotS, tt.want)
		}
	}
}

func TestParseLabels(t *testing.T) {
	got, err := ParseLabels([]string{"example.com/zone=garage", "tier=", "tier="})
	want := map[string]string{"example.com/zone": "garage", "tier": ""}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v, want %v", got, err, want)
	}
	bad := map[string]string{
		"novalue":                      "want key=value",
		"Bad Key=x":                    `key "Bad Key"`,
		"k=bad value":                  `value "bad value"`,
		"kubernetes.io/arch=arm":       "set by the agent itself",
		"bramble.io/board=x":           "set by the agent itself",
		"k=" + strings.Repeat("v", 64): "must be no more than 63",
	}
	for in, msg := range bad {
		_, err := ParseLabels([]string{in})
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--node-label") {
			t.Errorf("ParseLabels(%q): got %v, want an error naming --node-label and %q", in, err, msg)
		}
	}
	if _, err := ParseLabels([]string{"a=1", "a=2"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate label: got %v, want a 'twice' error", err)
	}
}

func TestParseTaints(t *testing.T) {
	got, err := ParseTaints([]string{"example.com/edge=true:NoSchedule", "dedicated:NoExecute", "k=v:with:PreferNoSchedule"})
	if err == nil {
		t.Fatalf("value with a colon: got %v, want an error", got)
	}
	got, err = ParseTaints([]string{"example.com/edge=true:NoSchedule", "dedicated:NoExecute", "dedicated:NoSchedule"})
	want := []corev1.Taint{
		{Key: "example.com/edge", Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: "dedicated", Effect: corev1.TaintEffectNoExecute},
		{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v, want %v", got, err, want)
	}
	bad := map[string]string{
		"nocolon":          "want key=value:Effect",
		"k=v:Sometimes":    `effect "Sometimes"`,
		"k=v:":             `effect ""`,
		"=v:NoSchedule":    `key ""`,
		":NoSchedule":      `key ""`,
		"k=v v:NoSchedule": `value "v v"`,
	}
	for in, msg := range bad {
		_, err := ParseTaint(in)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--node-taint") {
			t.Errorf("ParseTaint(%q): got %v, want an error naming --node-taint and %q", in, err, msg)
		}
	}
	if _, err := ParseTaints([]string{"a:NoSchedule", "a=b:NoSchedule"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate taint: got %v, want a 'twice' error", err)
	}
}

func FuzzParseTaint(f *testing.F) {
	for _, s := range []string{"example.com/edge=true:NoSchedule", "k:NoExecute", "k=v:PreferNoSchedule", ":", "=:", "a=b=c:NoSchedule", "\x00:NoSchedule"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		taint, err := ParseTaint(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--node-taint: ") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			return
		}
		if !taintEffects[taint.Effect] || checkLabel(taint.Key, taint.Value) != nil {
			t.Fatalf("accepted an invalid taint %+v from %q", taint, s)
		}
		back := taint.Key + ":" + string(taint.Effect)
		if taint.Value != "" {
			back = taint.Key + "=" + taint.Value + ":" + string(taint.Effect)
		}
		if again, err := ParseTaint(back); err != nil || again != taint {
			t.Fatalf("round trip of %q: got %+v, %v, want %+v", back, again, err, taint)
		}
	})
}

func FuzzParseReserved(f *testing.F) {
	for _, s := range []string{"cpu=250m,memory=256Mi", "ephemeral-storage=1Gi", "", "cpu=1e3", "memory=-1", "cpu=,", "cpu=1,cpu=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseReserved(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--system-reserved: ") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			return
		}
		for name, q := range got {
			if !reservable[name] || q.Sign() < 0 {
				t.Fatalf("accepted %s=%s from %q", name, q.String(), s)
			}
		}
		// Allocatable never goes negative, whatever was reserved.
		capa := capacity(1, 1<<20, 1<<20, 1)
		for name, q := range allocatable(capa, got) {
			if q.Cmp(resource.Quantity{}) < 0 {
				t.Fatalf("allocatable %s = %s is negative for %q", name, q.String(), s)
			}
		}
	})
}
