package runtime

import (
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

func TestValidateNamesTheField(t *testing.T) {
	good := ContainerSpec{ID: "pod-1_c.0", Image: "busybox", LogPath: "/var/log/x.log"}
	if err := good.Validate(); err != nil {
		t.Fatalf("good spec: %v", err)
	}
	hostDNS := good
	hostDNS.Sandbox = &Sandbox{HostNetwork: true, ResolvFile: "/run/pod/resolv.conf"}
	if err := hostDNS.Validate(); err != nil {
		t.Fatalf("host-network spec with a resolv.conf only: %v", err)
	}
	for want, mutate := range map[string]func(*ContainerSpec){
		"id":             func(s *ContainerSpec) { s.ID = "-bad" },
		"image":          func(s *ContainerSpec) { s.Image = "" },
		"workingDir":     func(s *ContainerSpec) { s.WorkingDir = "rel" },
		"logPath":        func(s *ContainerSpec) { s.LogPath = "x.log" },
		"memoryLimit":    func(s *ContainerSpec) { s.MemoryLimit = -1 },
		"cpuQuota -5":    func(s *ContainerSpec) { s.CPUQuota = -5 },
		"minimum":        func(s *ContainerSpec) { s.CPUQuota = 999 },
		"env[1].name":    func(s *ContainerSpec) { s.Env = []EnvVar{{Name: "A"}, {Name: "B=C"}} },
		"mounts[0]":      func(s *ContainerSpec) { s.Mounts = []Mount{{HostPath: "rel", ContainerPath: "/x"}} },
		"bramble.io/pod": func(s *ContainerSpec) { s.Labels = map[string]string{"bramble.io/pod": "x"} },
		"sandbox netns": func(s *ContainerSpec) {
			s.Sandbox = &Sandbox{NetNS: "rel", UTSNS: "/u", HostsFile: "/h", HostnameFile: "/n"}
		},
		"sandbox resolvFile": func(s *ContainerSpec) {
			s.Sandbox = &Sandbox{HostNetwork: true, ResolvFile: "resolv.conf"}
		},
	} {
		s := good
		mutate(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate with bad %s: got %v, want an error naming it", want, err)
		}
	}
}

func TestProcessArgsFollowsKubernetes(t *testing.T) {
	img := ocispec.ImageConfig{Entrypoint: []string{"/entry"}, Cmd: []string{"default"}}
	for _, tc := range []struct {
		name          string
		command, args []string
		want          string
	}{
		{"image as is", nil, nil, "/entry default"},
		{"args replace cmd", nil, []string{"a", "b"}, "/entry a b"},
		{"command drops cmd", []string{"sh"}, nil, "sh"},
		{"command and args", []string{"sh", "-c"}, []string{"echo"}, "sh -c echo"},
	} {
		got := strings.Join(processArgs(img, ContainerSpec{Command: tc.command, Args: tc.args}), " ")
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
