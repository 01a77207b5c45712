//go:build !agentonly

package main

import (
	"strings"
	"testing"
)

func TestDisableFlag(t *testing.T) {
	got, err := disabled([]string{"servicelb"})
	if err != nil || !got["servicelb"] {
		t.Fatalf("disabled(servicelb) = %v, %v", got, err)
	}
	if _, err := disabled([]string{"traefik"}); err == nil || !strings.Contains(err.Error(), `--disable "traefik"`) {
		t.Fatalf("unknown component: err %v, want one naming --disable", err)
	}
}
