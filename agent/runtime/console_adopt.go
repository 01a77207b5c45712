package runtime

import (
	"context"
	"slices"
	"strings"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"
)

// consoleLabel records how a container's console was made, so that an
// agent started later can take it back.
func consoleLabel(s ContainerSpec) string {
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{{s.Stdin, "stdin"}, {s.StdinOnce, "once"}, {s.TTY, "tty"}} {
		if x.on {
			f = append(f, x.name)
		}
	}
	return strings.Join(f, " ")
}

// reattachConsoles reopens the FIFOs of the running containers with a
// console (a previous agent made them; the shim kept its ends open), so
// their output reaches their logs again and they can be attached to.
// What cannot be reopened is logged: those containers keep running
// unattached.
func (c *Containerd) reattachConsoles(ctx context.Context) {
	ctrs, err := c.client.Containers(ctx, `labels."`+labelConsole+`"`)
	if err != nil {
		c.log.Warn("list containers with a console", "err", err)
		return
	}
	for _, ctr := range ctrs {
		if c.consoles.get(ctr.ID()) != nil {
			continue
		}
		if err := c.reattach(ctx, ctr); err != nil {
			c.log.Warn("container console not taken back", "container", ctr.ID(), "err", err)
		}
	}
}

func (c *Containerd) reattach(ctx context.Context, ctr containerd.Container) error {
	labels, err := ctr.Labels(ctx)
	if err != nil {
		return err
	}
	flags := strings.Fields(labels[labelConsole])
	s := ContainerSpec{ID: ctr.ID(), LogPath: labels[labelLogPath], Stdin: slices.Contains(flags, "stdin"),
		StdinOnce: slices.Contains(flags, "once"), TTY: slices.Contains(flags, "tty")}
	con, err := newConsole(s, c.cfg.LogMaxBytes, c.cfg.LogMaxFiles)
	if err != nil {
		return err
	}
	task, err := ctr.Task(ctx, cio.NewAttach(con.ioOpts()...))
	if err != nil {
		con.finish()
		return err
	}
	c.hold(con, task)
	c.log.Info("took back a container's console", "container", s.ID)
	return nil
}
