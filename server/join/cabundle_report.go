package join

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
)

// BundleReportFile is the name of the report file in the server's tls
// directory.
const BundleReportFile = "ca-bundle-nodes.json"

// BundleReport is what the server last heard from its nodes about their
// CA bundles: Bundle is the BundleHash of the bundle the server handed
// out, Nodes the hash each node with a current certificate said it holds
// ("" for a node that has not said since the server started).
type BundleReport struct {
	Bundle string            `json:"bundle"`
	Nodes  map[string]string `json:"nodes"`
}

func (r *BundleReport) write(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return auth.WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// ReadBundleReport reads the report file; a missing file is an error
// wrapping fs.ErrNotExist.
func ReadBundleReport(path string) (*BundleReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the nodes' CA bundle reports: %w", err)
	}
	var r BundleReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Pending lists, sorted, the nodes of the report that do not hold the
// bundle whose BundleHash is want.
func (r *BundleReport) Pending(want string) []string {
	var out []string
	for n, h := range r.Nodes {
		if h != want {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// CheckBundleRollout says why a CA rotation must not finish yet: the
// report file must exist, be about bundle (the PEM a start hands out now)
// and show every node holding it.
func CheckBundleRollout(reportFile string, bundle []byte) error {
	cas, err := nodejoin.ParseBundle(bundle)
	if err != nil {
		return fmt.Errorf("CA bundle: %w", err)
	}
	want := nodejoin.BundleHash(cas)
	rep, err := ReadBundleReport(reportFile)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no node has reported its CA bundle yet (%s is missing): start the server and wait for the agents to fetch the bundle (every 5 minutes)", reportFile)
	}
	if err != nil {
		return err
	}
	if rep.Bundle != want {
		return fmt.Errorf("the nodes' reports in %s are about another CA bundle: start the server after rotate-ca and wait for the agents to fetch the new one", reportFile)
	}
	if p := rep.Pending(want); len(p) > 0 {
		return fmt.Errorf("%d node(s) do not hold the new CA bundle yet: %v (see bramble certificate check)", len(p), p)
	}
	return nil
}
