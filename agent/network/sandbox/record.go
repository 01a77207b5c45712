package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
)

// record is what the agent keeps of one sandbox, in
// network/sandboxes/<uid>/sandbox.json: enough to tear it down (CNI DEL)
// after a restart and to bring it back with the same address after a
// reboot. It is written before the CNI ADD, so an agent that dies during
// the ADD still releases the address later.
type record struct {
	UID       string       `json:"uid"`
	Namespace string       `json:"namespace"`
	Name      string       `json:"name"`
	NetNS     string       `json:"netns"`
	UTSNS     string       `json:"utsns"`
	Hostname  string       `json:"hostname"`
	IPs       []netip.Addr `json:"ips,omitempty"`
	// Caps are the CNI capability args of the ADD (hostPorts, bandwidth):
	// portmap removes its rules on DEL only when it is given them again.
	Caps map[string]any `json:"caps,omitempty"`
	// Ready is set once the ADD succeeded and the files are written.
	Ready bool `json:"ready"`
}

func (m *Manager) recordDir(uid string) string { return filepath.Join(m.cfg.recordsDir(), uid) }

// HostsFile and HostnameFile are the files mounted as the pod's /etc/hosts
// and /etc/hostname.
func (m *Manager) HostsFile(uid string) string { return filepath.Join(m.recordDir(uid), "hosts") }

// ResolvFile is the pod's /etc/resolv.conf, written when Config.ResolvConf
// is set.
func (m *Manager) ResolvFile(uid string) string {
	return filepath.Join(m.recordDir(uid), "resolv.conf")
}

func (m *Manager) HostnameFile(uid string) string {
	return filepath.Join(m.recordDir(uid), "hostname")
}

func (m *Manager) loadRecord(uid string) (*record, error) {
	data, err := os.ReadFile(filepath.Join(m.recordDir(uid), "sandbox.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("sandbox record of pod %s: %w", uid, err)
	}
	return &r, nil
}

// saveRecord writes r atomically (a torn record would lose an address).
func (m *Manager) saveRecord(r *record) error {
	dir := m.recordDir(r.UID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writeSynced(filepath.Join(dir, "sandbox.json"), data, 0o600)
}

// writeSynced writes a file through a synced temporary and a rename.
func writeSynced(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// records lists the UIDs with a record.
func (m *Manager) records() ([]string, error) {
	ents, err := os.ReadDir(m.cfg.recordsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
