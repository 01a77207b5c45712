package join

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bramble-edge/bramble/durable"
)

// NodePasswordFile holds the node password in the agent's directory
// (<data-dir>/agent), 0600. It outlives re-joins: losing it means the
// node's name can only be taken again after an admin deletes the Node.
const NodePasswordFile = "node-password"

// Bounds of a node password: printable, without spaces, long enough to
// be unguessable (NewNodePassword draws 64 hex digits).
const (
	MinNodePasswordLen = 32
	MaxNodePasswordLen = 128
)

// NewNodePassword draws a random node password: 32 bytes in hex.
func NewNodePassword() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw node password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// CheckNodePassword checks the shape of a node password: MinNodePasswordLen
// to MaxNodePasswordLen printable ASCII characters other than space.
func CheckNodePassword(pw string) error {
	if n := len(pw); n < MinNodePasswordLen || n > MaxNodePasswordLen {
		return fmt.Errorf("%d characters, want %d to %d", n, MinNodePasswordLen, MaxNodePasswordLen)
	}
	if i := strings.IndexFunc(pw, func(r rune) bool { return r <= ' ' || r > '~' }); i >= 0 {
		return fmt.Errorf("character %d is not printable ASCII", i+1)
	}
	return nil
}

// LoadOrCreateNodePassword returns the node password kept in dir, drawing
// and saving (0600, fsynced) a new one when there is none yet. It is saved
// before the first join is sent, so a crash between the server storing
// its hash and the agent saving its credentials cannot lock the node out.
func LoadOrCreateNodePassword(dir string) (string, error) {
	path := filepath.Join(dir, NodePasswordFile)
	data, err := os.ReadFile(path)
	if err == nil {
		pw := strings.TrimSpace(string(data))
		if err := CheckNodePassword(pw); err != nil {
			return "", fmt.Errorf("node password %s: %w", path, err)
		}
		return pw, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("node password: %w", err)
	}
	pw, err := NewNodePassword()
	if err != nil {
		return "", err
	}
	if err := saveNodePassword(dir, pw); err != nil {
		return "", err
	}
	return pw, nil
}

func saveNodePassword(dir, pw string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save node password: %w", err)
	}
	if err := durable.WriteFile(filepath.Join(dir, NodePasswordFile), []byte(pw+"\n"), 0o600); err != nil {
		return fmt.Errorf("save node password: %w", err)
	}
	return nil
}
