package pki

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bramble-edge/bramble/server/auth"
)

// RotateCA begins a CA rotation in dir (the server's tls directory, the
// server stopped): it makes a new CA as ca-next.crt/.key. From the next
// start the server trusts both CAs for client certificates and hands
// nodes the bundle of both, while it still signs and serves with ca.crt.
// FinishRotateCA makes the new CA current once every node holds the
// bundle. It refuses while a rotation is under way.
func RotateCA(dir string, now time.Time) error {
	if _, err := os.Stat(filepath.Join(dir, "ca.crt")); err != nil {
		return fmt.Errorf("no cluster CA in %s (wrong --data-dir?): %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, NextCA+".crt")); err == nil {
		return fmt.Errorf("a CA rotation is already under way (%s exists): finish it with --finish first",
			filepath.Join(dir, NextCA+".crt"))
	}
	kp, err := newCA(now)
	if err != nil {
		return err
	}
	p := &PKI{dir: dir}
	if err := p.writePair(NextCA, kp); err != nil {
		return err
	}
	return auth.SyncDir(dir)
}

// FinishRotateCA ends a rotation (the server stopped): the CA it replaces
// becomes ca-previous (an older ca-previous and the serving and admin
// certificates move to dir/rotated-ca-<unix time>, which it returns), and
// ca-next becomes ca. The next start issues the serving and admin
// certificates from the new CA. Each step is a rename, and a finish cut
// short is completed by running it again.
func FinishRotateCA(dir string, now time.Time) (string, error) {
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name+".crt"))
		return err == nil
	}
	if !has(NextCA) {
		return "", fmt.Errorf("no CA rotation under way in %s (no %s.crt): run rotate-ca first", dir, NextCA)
	}
	backup := filepath.Join(dir, "rotated-ca-"+strconv.FormatInt(now.Unix(), 10))
	if err := os.MkdirAll(backup, 0o700); err != nil {
		return "", fmt.Errorf("finish CA rotation: %w", err)
	}
	steps, err := finishSteps(dir, backup, has)
	if err != nil {
		return "", err
	}
	for _, s := range steps {
		if err := movePair(s[0], s[1]); err != nil {
			return "", fmt.Errorf("finish CA rotation: %w", err)
		}
	}
	return backup, auth.SyncDir(dir)
}

// finishSteps are the renames (from, to; without .crt/.key) that finish a
// rotation from where the files are: a first run moves ca away, a run
// after one cut short finds it gone already.
func finishSteps(dir, backup string, has func(string) bool) ([][2]string, error) {
	var steps [][2]string
	if has("ca") {
		if has(PreviousCA) {
			steps = append(steps, [2]string{filepath.Join(dir, PreviousCA), filepath.Join(backup, PreviousCA)})
		}
		steps = append(steps, [2]string{filepath.Join(dir, "ca"), filepath.Join(dir, PreviousCA)})
	} else if !has(PreviousCA) {
		return nil, fmt.Errorf("finish CA rotation: neither ca.crt nor %s.crt in %s", PreviousCA, dir)
	}
	steps = append(steps, [2]string{filepath.Join(dir, NextCA), filepath.Join(dir, "ca")})
	for _, s := range Services {
		steps = append(steps, [2]string{filepath.Join(dir, s), filepath.Join(backup, s)})
	}
	return steps, nil
}

// movePair renames from.key and from.crt to to.key and to.crt; missing
// files are skipped. The key goes first, so a pair cut in two is never
// the certificate alone at the new place.
func movePair(from, to string) error {
	for _, ext := range []string{".key", ".crt"} {
		if err := os.Rename(from+ext, to+ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// DiskBundlePEM reads, from dir with the server stopped, the bundle a
// start would hand to nodes (BundlePEM).
func DiskBundlePEM(dir string) ([]byte, error) {
	var out []byte
	for _, name := range []string{"ca", NextCA, PreviousCA} {
		data, err := os.ReadFile(filepath.Join(dir, name+".crt"))
		if errors.Is(err, fs.ErrNotExist) && name != "ca" {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read CA bundle: %w", err)
		}
		cert, err := parseCertPEM(data)
		if err != nil {
			return nil, fmt.Errorf("read CA bundle: %s.crt: %w", name, err)
		}
		out = append(out, encodeCert(cert.Raw)...)
	}
	return out, nil
}
