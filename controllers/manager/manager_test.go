package manager

import (
	"slices"
	"testing"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

func loopNames(m *Manager) []string {
	var out []string
	for _, l := range m.loops {
		out = append(out, l.name)
	}
	return out
}

// The service load balancer runs by default and not with --disable servicelb.
func TestDisableServiceLB(t *testing.T) {
	for _, off := range []bool{false, true} {
		e := controllertest.New(t)
		m, err := NewWithConfig(controllers.Deps{Client: e.Client, Cache: e.Cache, Log: e.Log}, Config{DisableServiceLB: off})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(loopNames(m), "servicelb"); got == off {
			t.Errorf("DisableServiceLB=%v: servicelb running=%v in %v", off, got, loopNames(m))
		}
	}
}
