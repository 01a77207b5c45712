package broker

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMosquittoACLRoundTrip(t *testing.T) {
	in := MosquittoACL{Servers: []string{DefaultServerName}, Nodes: []string{"pi-2", "pi-1", "pi-1"}, Viewers: []string{"dash"}}
	data, err := in.Render()
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for _, want := range []string{"user system:node:pi-1\ntopic readwrite bramble/v1/nodes/pi-1/#\n",
		"user dash\ntopic read bramble/v1/watch/#\n", "user bramble:server\ntopic readwrite #\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("rendered ACL lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "\npattern") {
		t.Errorf("rendered ACL has a pattern line:\n%s", data)
	}
	out, err := ParseMosquittoACL(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if !slices.Equal(out.Nodes, []string{"pi-1", "pi-2"}) || !slices.Equal(out.Viewers, in.Viewers) || !slices.Equal(out.Servers, in.Servers) {
		t.Errorf("round trip: got %+v, want the sorted, de-duplicated %+v", out, in)
	}
}

func TestMosquittoACLErrors(t *testing.T) {
	for name, acl := range map[string]MosquittoACL{
		"bad node":   {Nodes: []string{"Pi_1"}},
		"bad viewer": {Viewers: []string{"admin"}},
		"bad server": {Servers: []string{"root"}},
	} {
		if _, err := acl.Render(); err == nil {
			t.Errorf("%s: Render got no error", name)
		}
	}
	for name, file := range map[string]string{
		"pattern":           "pattern readwrite bramble/v1/nodes/%c/#\n",
		"anonymous topic":   "topic read #\n",
		"foreign node rule": "user system:node:pi-1\ntopic readwrite bramble/v1/nodes/pi-2/#\n",
		"viewer writes":     "user dash\ntopic readwrite bramble/v1/watch/#\n",
		"two topics":        "user dash\ntopic read bramble/v1/watch/#\ntopic read #\n",
		"no topic":          "user dash\n",
		"unknown user":      "user Dash\ntopic read bramble/v1/watch/#\n",
	} {
		if _, err := ParseMosquittoACL([]byte(file)); err == nil || !strings.Contains(err.Error(), "mosquitto ACL") {
			t.Errorf("%s: got %v, want an error about the mosquitto ACL", name, err)
		}
	}
}

func TestShippedMosquittoACL(t *testing.T) {
	data, err := os.ReadFile("../../packaging/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	acl, err := ParseMosquittoACL(data)
	if err != nil || !slices.Equal(acl.Servers, []string{DefaultServerName}) || len(acl.Nodes)+len(acl.Viewers) > 0 {
		t.Fatalf("shipped ACL: got %+v, %v; want the server alone", acl, err)
	}
	path := filepath.Join(t.TempDir(), "acl")
	if err := os.WriteFile(path, data, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := UpdateMosquittoACL(path, func(a *MosquittoACL) { a.Nodes = append(a.Nodes, "pi-1") }); err != nil {
		t.Fatalf("UpdateMosquittoACL: %v", err)
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), "user system:node:pi-1\n") {
		t.Errorf("updated ACL lacks the node:\n%s", got)
	}
	if err := ReloadMosquitto(filepath.Join(t.TempDir(), "none.pid")); err == nil {
		t.Error("ReloadMosquitto without a pid file: got no error")
	}
}
