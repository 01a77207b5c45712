package broker

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/bramble-edge/bramble/durable"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

// MosquittoACL is the content of the acl_file of an external mosquitto
// (packaging/mosquitto). mosquitto's username is the certificate's whole CN
// (use_identity_as_username) and its "pattern" lines would apply to every
// identity, so the file holds one "user" section per identity and no
// patterns: an identity without a section gets nothing.
type MosquittoACL struct {
	Servers []string // server CNs (bramble:server[:<name>]): every topic
	Nodes   []string // node names: their own bramble/v1/nodes/<name>/ subtree
	Viewers []string // viewer names: read below bramble/v1/watch/
}

const mosquittoACLHeader = `# bramble's ACL for mosquitto, written by bramble: edits are lost when it
# is written again. One section per identity (the username is the client
# certificate's CN); no pattern lines, so an identity without a section may
# do nothing. Reload mosquitto (SIGHUP) after a change.
`

// Render returns the file, sections sorted by kind and name. It fails on
// a name that is not valid for its kind.
func (a MosquittoACL) Render() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(mosquittoACLHeader)
	add := func(names []string, valid func(string) error, user func(string) string, rule func(string) string) error {
		sorted := slices.Clone(names)
		slices.Sort(sorted)
		for _, n := range slices.Compact(sorted) {
			if err := valid(n); err != nil {
				return fmt.Errorf("mosquitto ACL: %w", err)
			}
			fmt.Fprintf(&buf, "\nuser %s\ntopic %s\n", user(n), rule(n))
		}
		return nil
	}
	same := func(s string) string { return s }
	if err := add(a.Servers, validServerName, same, func(string) string { return "readwrite #" }); err != nil {
		return nil, err
	}
	if err := add(a.Nodes, validNodeName, func(n string) string { return join.NodeUserPrefix + n }, nodeACLRule); err != nil {
		return nil, err
	}
	if err := add(a.Viewers, validViewerName, same, func(string) string { return "read " + mqtt.WatchPrefix + "#" }); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func nodeACLRule(node string) string { return "readwrite " + mqtt.NodeSubtree(node) + "#" }

// ParseMosquittoACL reads a file written by Render back. Anything Render
// would not have written is an error naming the line.
func ParseMosquittoACL(data []byte) (MosquittoACL, error) {
	var a MosquittoACL
	var user string // the section being read; "" before the first
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if u, ok := strings.CutPrefix(line, "user "); ok && user == "" {
			user = strings.TrimSpace(u)
			continue
		}
		rule, ok := strings.CutPrefix(line, "topic ")
		if !ok || user == "" {
			return MosquittoACL{}, fmt.Errorf("mosquitto ACL line %d: %q: want \"user NAME\" then one \"topic\" line", n, line)
		}
		if err := a.addSection(user, strings.TrimSpace(rule)); err != nil {
			return MosquittoACL{}, fmt.Errorf("mosquitto ACL line %d: %w", n, err)
		}
		user = ""
	}
	if err := sc.Err(); err != nil {
		return MosquittoACL{}, fmt.Errorf("mosquitto ACL: %w", err)
	}
	if user != "" {
		return MosquittoACL{}, fmt.Errorf("mosquitto ACL: user %q has no topic line", user)
	}
	return a, nil
}

// addSection classifies one user section by its name and checks its rule.
func (a *MosquittoACL) addSection(user, rule string) error {
	if node, ok := strings.CutPrefix(user, join.NodeUserPrefix); ok {
		if err := validNodeName(node); err != nil {
			return err
		}
		if rule != nodeACLRule(node) {
			return fmt.Errorf("user %q: topic %q: want %q", user, rule, nodeACLRule(node))
		}
		a.Nodes = append(a.Nodes, node)
		return nil
	}
	if validServerName(user) == nil {
		if rule != "readwrite #" {
			return fmt.Errorf("user %q: topic %q: want %q", user, rule, "readwrite #")
		}
		a.Servers = append(a.Servers, user)
		return nil
	}
	if err := validViewerName(user); err != nil {
		return fmt.Errorf("user %q is neither a server, a node nor a viewer: %w", user, err)
	}
	if want := "read " + mqtt.WatchPrefix + "#"; rule != want {
		return fmt.Errorf("user %q: topic %q: want %q", user, rule, want)
	}
	a.Viewers = append(a.Viewers, user)
	return nil
}

// WriteMosquittoACL renders acl into path atomically (mode 0640, readable
// by mosquitto's group when the file is chowned to it).
func WriteMosquittoACL(path string, acl MosquittoACL) error {
	data, err := acl.Render()
	if err != nil {
		return err
	}
	return durable.WriteFile(path, data, 0o640)
}

// UpdateMosquittoACL reads the ACL at path (a missing file is empty),
// applies change and writes it back.
func UpdateMosquittoACL(path string, change func(*MosquittoACL)) error {
	var acl MosquittoACL
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("mosquitto ACL: %w", err)
	default:
		if acl, err = ParseMosquittoACL(data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	change(&acl)
	return WriteMosquittoACL(path, acl)
}

// ReloadMosquitto asks the mosquitto whose pid is in pidFile to reload its
// ACL file (SIGHUP); `systemctl reload mosquitto` does the same. The reload
// happens soon after, not before this returns; and mosquitto 2.0 forgets a
// SIGHUP that arrives while it is reloading, so after a burst of changes
// signal once more when the burst is over.
func ReloadMosquitto(pidFile string) error {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return fmt.Errorf("reload mosquitto: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("reload mosquitto: %s does not hold a process id", pidFile)
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return fmt.Errorf("reload mosquitto (pid %d): %w", pid, err)
	}
	return nil
}
