package nodeinfo

import (
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatalf("read testdata: %v", err)
	}
	return b
}

func TestArchitecture(t *testing.T) {
	tests := []struct {
		name, goarch, goarm, cpuinfo string
		inline                       string
		want                         string
	}{
		{name: "x86", goarch: "amd64", cpuinfo: "x86/proc/cpuinfo", want: "amd64"},
		{name: "pi4 64-bit", goarch: "arm64", cpuinfo: "pi4/proc/cpuinfo", want: "arm64"},
		{name: "pi4 32-bit userland on a 64-bit kernel", goarch: "arm", cpuinfo: "pi4/proc/cpuinfo", want: "arm/v7"},
		{name: "pi zero reports 7 but is v6", goarch: "arm", cpuinfo: "pizero/proc/cpuinfo", want: "arm/v6"},
		{name: "pi3 32-bit kernel", goarch: "arm", inline: "model name\t: ARMv7 Processor rev 4 (v7l)\nCPU architecture: 7\n", want: "arm/v7"},
		{name: "aarch64 spelled out", goarch: "arm", inline: "CPU architecture: AArch64\n", want: "arm/v7"},
		{name: "armv5", goarch: "arm", inline: "CPU architecture: 5TEJ\n", want: "arm/v5"},
		{name: "no cpuinfo falls back to GOARM", goarch: "arm", goarm: "6", want: "arm/v6"},
		{name: "GOARM with float mode", goarch: "arm", goarm: "7,hardfloat", want: "arm/v7"},
		{name: "nothing known", goarch: "arm", want: "arm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := []byte(tt.inline)
			if tt.cpuinfo != "" {
				info = readTestdata(t, tt.cpuinfo)
			}
			if got := Architecture(tt.goarch, tt.goarm, info); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOSPrettyName(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"debian", string(readTestdata(t, "pi4/etc/os-release")), "Debian GNU/Linux 12 (bookworm)"},
		{"single quotes", string(readTestdata(t, "x86/etc/os-release")), "Alpine Linux v3.20"},
		{"unquoted", "PRETTY_NAME=Gentoo\n", "Gentoo"},
		{"escaped quote", `PRETTY_NAME="My \"OS\""` + "\n", `My "OS"`},
		{"missing", "NAME=x\n", "Linux"},
		{"empty value", "PRETTY_NAME=\"\"\n", "Linux"},
	}
	for _, tt := range tests {
		if got := osPrettyName([]byte(tt.text)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestBoardModelAndLabel(t *testing.T) {
	model := boardModel(readTestdata(t, "pi4/proc/device-tree/model"))
	if model != "Raspberry Pi 4 Model B Rev 1.4" {
		t.Fatalf("model: got %q, want %q", model, "Raspberry Pi 4 Model B Rev 1.4")
	}
	tests := []struct{ in, want string }{
		{model, "Raspberry-Pi-4-Model-B-Rev-1.4"},
		{"Raspberry Pi Compute Module 4 Rev 1.0", "Raspberry-Pi-Compute-Module-4-Rev-1.0"},
		{"  (weird) — board!  ", "weird-board"},
		{"", ""},
		{string(make([]byte, 100)), ""},
		{"Pine64 " + string(repeat('x', 80)), "Pine64-" + string(repeat('x', 56))},
	}
	for _, tt := range tests {
		if got := BoardLabel(tt.in); got != tt.want {
			t.Errorf("BoardLabel(%q): got %q, want %q", tt.in, got, tt.want)
		}
		if got := BoardLabel(tt.in); got != "" {
			if err := checkLabel(LabelBoard, got); err != nil {
				t.Errorf("BoardLabel(%q) = %q is not a valid label: %v", tt.in, got, err)
			}
		}
	}
}

func repeat(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}

func TestPIDsInUse(t *testing.T) {
	if n, err := pidsInUse(readTestdata(t, "pi4/proc/loadavg")); err != nil || n != 213 {
		t.Errorf("got %d, %v, want 213", n, err)
	}
	for _, bad := range []string{"", "0.1 0.2 0.3", "0.1 0.2 0.3 5 7", "0.1 0.2 0.3 1/x 9", "0.1 0.2 0.3 1/-4 9"} {
		if _, err := pidsInUse([]byte(bad)); err == nil {
			t.Errorf("pidsInUse(%q): got no error, want one", bad)
		}
	}
}

func TestTemperature(t *testing.T) {
	tests := []struct {
		root string
		want float64
		ok   bool
	}{
		{"testdata/pi4", 51.54, true},
		{"testdata/x86", 44, true}, // no CPU zone: the hottest
		{"testdata/pizero", 0, false},
	}
	for _, tt := range tests {
		got, ok := temperature(tt.root)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: got %v, %v, want %v, %v", tt.root, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDefaultRouteInterface(t *testing.T) {
	if got := defaultRouteInterface(readTestdata(t, "pi4/proc/net/route")); got != "wlan0" {
		t.Errorf("got %q, want wlan0", got)
	}
	if got := defaultRouteInterface([]byte("Iface\tDestination\n")); got != "" {
		t.Errorf("no route: got %q, want empty", got)
	}
}
