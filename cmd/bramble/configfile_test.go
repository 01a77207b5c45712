//go:build !agentonly

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// configValue is a non-default value of flag fl, as YAML for the config
// file and as pflag prints it back.
func configValue(t *testing.T, fl *pflag.Flag) (yaml, want string) {
	t.Helper()
	switch fl.Value.Type() {
	case "string":
		return fmt.Sprintf("%q", "from-file-"+fl.Name), "from-file-" + fl.Name
	case "int", "int64":
		return "4242", "4242"
	case "bool":
		return "true", "true"
	case "duration":
		return "7s", "7s"
	case "stringSlice", "stringArray":
		return "[a=1, b=2]", "[a=1,b=2]"
	}
	t.Fatalf("flag --%s: type %s has no test value; add one", fl.Name, fl.Value.Type())
	return "", ""
}

// configFileCase writes a config file naming every flag of cmd but
// --config, and returns the file and the values each flag should get.
func configFileCase(t *testing.T, cmd *cobra.Command) (string, map[string]string) {
	t.Helper()
	want := map[string]string{}
	var lines []string
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "config" {
			return
		}
		y, w := configValue(t, fl)
		lines = append(lines, fl.Name+": "+y)
		want[fl.Name] = w
	})
	sort.Strings(lines)
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, want
}

// TestConfigFileMirrorsEveryFlag: each flag of `bramble server` and
// `bramble agent` can be set from the config file, and a flag given on
// the command line wins over the file.
func TestConfigFileMirrorsEveryFlag(t *testing.T) {
	for name, newCmd := range map[string]func() *cobra.Command{"server": newServerCommand, "agent": newAgentCommand} {
		t.Run(name, func(t *testing.T) {
			cmd := newCmd()
			path, want := configFileCase(t, cmd)
			f := cmd.Flags()
			if err := f.Parse([]string{"--config", path, "--node-name", "from-flag", "--node-label", "x=y"}); err != nil {
				t.Fatal(err)
			}
			want["node-name"], want["node-label"] = "from-flag", "[x=y]"
			if err := applyConfigFile(f, path, name); err != nil {
				t.Fatalf("applyConfigFile: %v", err)
			}
			for flag, w := range want {
				if got := f.Lookup(flag).Value.String(); got != w {
					t.Errorf("--%s: got %q, want %q", flag, got, w)
				}
			}
		})
	}
}

func TestConfigFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, wantErr string }{
		{"no-such-flag: 1\n", `"no-such-flag" is not a flag of bramble server`},
		{"config: /etc/other.yaml\n", `"config" is not a flag`},
		{"https-listen-port: many\n", "https-listen-port"},
		{"disable-agent: maybe\n", "disable-agent"},
	} {
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := newServerCommand()
		if err := cmd.Flags().Parse([]string{"--config", path}); err != nil {
			t.Fatal(err)
		}
		err := applyConfigFile(cmd.Flags(), path, "server")
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%q: got %v, want an error containing %q", tc.body, err, tc.wantErr)
		}
	}
	cmd := newAgentCommand()
	missing := filepath.Join(dir, "missing.yaml")
	if err := cmd.Flags().Parse([]string{"--config", missing}); err != nil {
		t.Fatal(err)
	}
	if err := applyConfigFile(cmd.Flags(), missing, "agent"); err == nil {
		t.Errorf("a missing file named by --config: got no error, want one")
	}
}
