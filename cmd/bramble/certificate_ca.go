//go:build !agentonly

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/pki"
)

// newRotateCACommand is `bramble certificate rotate-ca [--finish [--force]]`
// (docs/CERTIFICATES.md): a new cluster CA rolled out as a trust bundle in
// two steps, the server stopped for each.
func newRotateCACommand(dataDir *string) *cobra.Command {
	var finish, force bool
	cmd := &cobra.Command{
		Use:   "rotate-ca",
		Short: "Make a new cluster CA: first handed to nodes beside the old one, then (--finish) made current (run each step with the server stopped)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := filepath.Join(*dataDir, "server", "tls")
			out := cmd.OutOrStdout()
			if force && !finish {
				return fmt.Errorf("--force: only with --finish")
			}
			if !finish {
				if err := pki.RotateCA(dir, time.Now()); err != nil {
					return err
				}
				fmt.Fprintf(out, "made the new CA %s; start the server: it hands nodes both CAs, "+
					"then run rotate-ca --finish once bramble certificate check shows every node holding them\n",
					filepath.Join(dir, pki.NextCA+".crt"))
				return nil
			}
			return finishRotateCA(cmd, dir, force)
		},
	}
	cmd.Flags().BoolVar(&finish, "finish", false, "make the new CA current (every node must hold the bundle, see certificate check)")
	cmd.Flags().BoolVar(&force, "force", false, "with --finish: finish even though some nodes have not reported the bundle (they must join again)")
	return cmd
}

func finishRotateCA(cmd *cobra.Command, dir string, force bool) error {
	if _, err := os.Stat(filepath.Join(dir, pki.NextCA+".crt")); err != nil {
		return fmt.Errorf("no CA rotation under way in %s (no %s.crt): run rotate-ca first", dir, pki.NextCA)
	}
	if _, err := os.Stat(filepath.Join(dir, "ca.crt")); err != nil {
		// A finish cut short after ca.crt moved: the check passed then.
		return finishRenames(cmd, dir)
	}
	bundle, err := pki.DiskBundlePEM(dir)
	if err != nil {
		return err
	}
	if err := join.CheckBundleRollout(filepath.Join(dir, join.BundleReportFile), bundle); err != nil {
		if !force {
			return fmt.Errorf("not finishing the CA rotation: %w (--force finishes anyway)", err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "finishing anyway (--force): %v\n", err)
	}
	return finishRenames(cmd, dir)
}

func finishRenames(cmd *cobra.Command, dir string) error {
	backup, err := pki.FinishRotateCA(dir, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "the new CA is current (the old one is %s.crt, trusted for node certificates until they renew); "+
		"moved the serving and admin certificates to %s: start the server to issue them from the new CA "+
		"(join tokens name the new CA from then on)\n", pki.PreviousCA, backup)
	return nil
}

// printBundleReport adds to `certificate check` which nodes hold the CA
// bundle a start hands out, when a report file exists.
func printBundleReport(cmd *cobra.Command, tlsDir string) error {
	rep, err := join.ReadBundleReport(filepath.Join(tlsDir, join.BundleReportFile))
	if err != nil {
		return nil // no node has reported: nothing to show
	}
	bundle, err := pki.DiskBundlePEM(tlsDir)
	if err != nil {
		return nil
	}
	cas, err := nodejoin.ParseBundle(bundle)
	if err != nil {
		return err
	}
	want := nodejoin.BundleHash(cas)
	nodes := make([]string, 0, len(rep.Nodes))
	for n := range rep.Nodes {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\nNODE\tCA BUNDLE (%d CAs)\n", len(cas))
	for _, n := range nodes {
		fmt.Fprintf(w, "%s\t%s\n", n, bundleState(rep.Nodes[n], want))
	}
	return w.Flush()
}

// bundleState says whether a node reporting held holds the bundle want.
func bundleState(held, want string) string {
	switch held {
	case "":
		return "not reported"
	case want:
		return "holds it"
	}
	return "holds another (old) bundle"
}
