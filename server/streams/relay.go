package streams

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// ExecIO are the client's side of an exec: nil Stdin sends none; Resize
// (may be nil) carries terminal sizes.
type ExecIO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Resize         <-chan tunnel.Size
}

// Exec relays an accepted exec tunnel to e until the process ends and
// returns its exit code. Each frame is written to the client before the
// next is read, so a slow client slows the agent (TCP carries the
// backpressure) and nothing queues here. It closes conn.
func Exec(ctx context.Context, conn net.Conn, e ExecIO) (int, error) {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	fw := tunnel.NewWriter(conn)
	if e.Stdin != nil {
		go func() {
			if fw.Copy(tunnel.Stdin, e.Stdin) == nil {
				_ = fw.Write(tunnel.CloseStdin, nil)
			}
		}()
	}
	if e.Resize != nil {
		go sendSizes(ctx, fw, e.Resize)
	}
	fr := tunnel.NewReader(conn)
	for {
		ch, p, err := fr.Read()
		if err != nil {
			return 0, ended(ctx, err)
		}
		switch {
		case ch == tunnel.Stdout && e.Stdout != nil:
			_, err = e.Stdout.Write(p)
		case ch == tunnel.Stderr && e.Stderr != nil:
			_, err = e.Stderr.Write(p)
		case ch == tunnel.Status:
			return result(p)
		}
		if err != nil {
			return 0, fmt.Errorf("write to the client: %w", err)
		}
	}
}

func sendSizes(ctx context.Context, fw *tunnel.Writer, sizes <-chan tunnel.Size) {
	for {
		select {
		case <-ctx.Done():
			return
		case sz, ok := <-sizes:
			if !ok || fw.WriteJSON(tunnel.Resize, sz) != nil {
				return
			}
		}
	}
}

// Forward relays an accepted port-forward tunnel and client's bytes both
// ways until the pod's side ends; closeWrite (may be nil) half-closes the
// client when it does. It closes conn.
func Forward(ctx context.Context, conn net.Conn, client io.ReadWriter) error {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	fw := tunnel.NewWriter(conn)
	go func() {
		if fw.Copy(tunnel.Data, client) == nil {
			_ = fw.Write(tunnel.CloseStdin, nil)
		}
	}()
	fr := tunnel.NewReader(conn)
	for {
		ch, p, err := fr.Read()
		if err != nil {
			return ended(ctx, err)
		}
		switch ch {
		case tunnel.Data:
			if _, err := client.Write(p); err != nil {
				return fmt.Errorf("write to the client: %w", err)
			}
		case tunnel.Status:
			_, err := result(p)
			return err
		}
	}
}

func ended(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return errors.New("the node closed the stream without an exit status")
	}
	return fmt.Errorf("read from the node: %w", err)
}

func result(p []byte) (int, error) {
	res, err := tunnel.DecodeResult(p)
	if err != nil {
		return 0, err
	}
	if res.Error != "" {
		return 0, mqtt.AgentStatus(res.Code, res.Error)
	}
	return res.ExitCode, nil
}
