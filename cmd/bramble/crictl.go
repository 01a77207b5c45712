package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/agent"
	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// bramble crictl: crictl's listings (ps, pods, images) for bramble's
// containers. bramble speaks to containerd directly, not through CRI, so
// crictl itself sees nothing; these read the same containerd namespace the
// agent uses and name each container's pod from its log folder
// (<pod-log-dir>/<namespace>_<pod>_<uid>/).

type crictlOptions struct {
	address, namespace string
}

func newCrictlCommand() *cobra.Command {
	o := &crictlOptions{}
	cmd := &cobra.Command{
		Use:   "crictl",
		Short: "List the agent's containers, pods and images, as crictl ps|pods|images would",
	}
	f := cmd.PersistentFlags()
	f.StringVar(&o.address, "container-runtime-endpoint", agent.DefaultRuntimeEndpoint, "containerd socket")
	f.StringVar(&o.namespace, "containerd-namespace", agent.DefaultNamespace, "containerd namespace of the agent's containers")
	var all bool
	ps := &cobra.Command{Use: "ps", Short: "List containers (running ones unless -a)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.ps(cmd, all) }}
	ps.Flags().BoolVarP(&all, "all", "a", false, "show every container, exited ones too")
	cmd.AddCommand(ps,
		&cobra.Command{Use: "pods", Short: "List the pods that have containers on this node", Args: cobra.NoArgs, RunE: o.pods},
		&cobra.Command{Use: "images", Short: "List the images", Args: cobra.NoArgs, RunE: o.images})
	return cmd
}

// withRuntime connects to the agent's containerd for the length of use.
func (o *crictlOptions) withRuntime(cmd *cobra.Command, use func(rt *runtime.Containerd) error) error {
	rt, err := runtime.NewContainerd(cmd.Context(), runtime.ContainerdConfig{Address: o.address, Namespace: o.namespace})
	if err != nil {
		return err
	}
	defer rt.Close()
	return use(rt)
}

// listContainers hands the agent's containers to write.
func (o *crictlOptions) listContainers(cmd *cobra.Command, write func(list []runtime.ContainerStatus)) error {
	return o.withRuntime(cmd, func(rt *runtime.Containerd) error {
		list, err := rt.ListContainers(cmd.Context())
		if err != nil {
			return err
		}
		write(list)
		return nil
	})
}

func (o *crictlOptions) ps(cmd *cobra.Command, all bool) error {
	return o.listContainers(cmd, func(list []runtime.ContainerStatus) {
		writeContainers(cmd.OutOrStdout(), list, all, time.Now())
	})
}

func (o *crictlOptions) pods(cmd *cobra.Command, _ []string) error {
	return o.listContainers(cmd, func(list []runtime.ContainerStatus) {
		writePods(cmd.OutOrStdout(), list, time.Now())
	})
}

func (o *crictlOptions) images(cmd *cobra.Command, _ []string) error {
	return o.withRuntime(cmd, func(rt *runtime.Containerd) error {
		list, err := rt.ListImages(cmd.Context())
		if err != nil {
			return err
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 8, 3, ' ', 0)
		fmt.Fprintln(w, "IMAGE\tDIGEST\tSIZE")
		for _, im := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\n", im.Name, shortDigest(im.Digest), humanBytes(im.Size))
		}
		return w.Flush()
	})
}

// writeContainers prints crictl ps's columns, newest first.
func writeContainers(out io.Writer, list []runtime.ContainerStatus, all bool, now time.Time) {
	sort.Slice(list, func(i, j int) bool { return list[i].CreatedAt.After(list[j].CreatedAt) })
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "CONTAINER\tIMAGE\tCREATED\tSTATE\tNAME\tATTEMPT\tPOD ID\tPOD\tNAMESPACE")
	for _, c := range list {
		if !all && c.State != runtime.StateRunning {
			continue
		}
		ns, pod := podOfLog(c.LogPath)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", shortID(c.ID), c.Image, ago(now, c.CreatedAt),
			stateName(c.State), c.Name, orDash(c.Labels[pods.LabelAttempt]), shortID(c.PodUID), pod, ns)
	}
	_ = w.Flush()
}

// writePods prints one line per pod that has containers here, with how
// many run.
func writePods(out io.Writer, list []runtime.ContainerStatus, now time.Time) {
	type podRow struct {
		uid, ns, name  string
		created        time.Time
		running, total int
	}
	rows := map[string]*podRow{}
	for _, c := range list {
		r := rows[c.PodUID]
		if r == nil {
			ns, name := podOfLog(c.LogPath)
			r = &podRow{uid: c.PodUID, ns: ns, name: name, created: c.CreatedAt}
			rows[c.PodUID] = r
		}
		r.total++
		if c.State == runtime.StateRunning {
			r.running++
		}
		if c.CreatedAt.Before(r.created) {
			r.created = c.CreatedAt
		}
	}
	sorted := make([]*podRow, 0, len(rows))
	for _, r := range rows {
		sorted = append(sorted, r)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].created.After(sorted[j].created) })
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "POD ID\tCREATED\tSTATE\tNAME\tNAMESPACE\tCONTAINERS")
	for _, r := range sorted {
		state := "NotReady"
		if r.running > 0 {
			state = "Ready"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d/%d running\n", shortID(r.uid), ago(now, r.created), state, r.name, r.ns, r.running, r.total)
	}
	_ = w.Flush()
}

// podOfLog reads namespace and pod name from a container's log path,
// <root>/<namespace>_<pod>_<uid>/<container>/<n>.log ("-" when it has
// another shape).
func podOfLog(path string) (namespace, pod string) {
	dir := filepath.Base(filepath.Dir(filepath.Dir(path)))
	parts := strings.Split(dir, "_")
	if path == "" || len(parts) != 3 {
		return "-", "-"
	}
	return parts[0], parts[1]
}

func stateName(s runtime.State) string {
	switch s {
	case runtime.StateRunning:
		return "Running"
	case runtime.StateExited:
		return "Exited"
	case runtime.StateCreated:
		return "Created"
	}
	return "Unknown"
}

func shortID(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return orDash(id)
}

func shortDigest(d string) string {
	_, hex, ok := strings.Cut(d, ":")
	if !ok || len(hex) < 13 {
		return orDash(d)
	}
	return hex[:13]
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ago is crictl's "About a minute ago" style, shortened: "42s ago".
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fkB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
