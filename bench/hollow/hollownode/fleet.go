package hollownode

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/join"
)

// Fleet is a set of hollow nodes run by one process.
type Fleet struct {
	cfg   Config
	token join.Token
	nodes []*Node

	cancel context.CancelFunc
	once   sync.Once
}

// Start joins (or reuses the saved credentials of) every node, connects
// each one to MQTT and starts its heartbeats; nodes start Stagger apart.
// It returns once every node has started, or with the first join error
// (after stopping the nodes already started).
func Start(ctx context.Context, cfg Config) (*Fleet, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	tok, _ := join.ParseToken(cfg.Token) // validated by setDefaults
	f := &Fleet{cfg: cfg, token: tok, nodes: make([]*Node, cfg.Nodes)}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f.cancel = cancel
	if err := f.startAll(ctx, runCtx); err != nil {
		f.Stop()
		return nil, err
	}
	cfg.Logger.Info("hollow nodes started", "nodes", cfg.Nodes, "prefix", cfg.Prefix)
	return f, nil
}

// startAll joins every node, then starts them in order, Stagger apart.
func (f *Fleet) startAll(ctx, runCtx context.Context) error {
	creds, err := f.joinAll(ctx)
	if err != nil {
		return err
	}
	for i, c := range creds {
		if f.nodes[i], err = startNode(runCtx, &f.cfg, c); err != nil {
			return err
		}
		time.Sleep(f.cfg.Stagger)
	}
	return nil
}

// joinAll gets every node's credentials, JoinWorkers at a time; the first
// error stops the rest.
func (f *Fleet) joinAll(ctx context.Context) ([]*join.Credentials, error) {
	creds := make([]*join.Credentials, f.cfg.Nodes)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range f.cfg.JoinWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := f.credentials(ctx, nodeName(f.cfg.Prefix, i))
				if err != nil {
					cancel(err)
				}
				creds[i] = c
			}
		}()
	}
	for i := 0; i < f.cfg.Nodes && ctx.Err() == nil; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("start hollow nodes: %w", err)
	}
	return creds, nil
}

// Nodes returns the fleet's nodes in name order.
func (f *Fleet) Nodes() []*Node { return f.nodes }

// Stop stops every node: heartbeats end and MQTT connections close (each
// marks its presence offline), and the nodes go silent. It waits for them.
func (f *Fleet) Stop() {
	f.once.Do(func() {
		f.cancel()
		var wg sync.WaitGroup
		for _, n := range f.nodes {
			if n != nil {
				wg.Add(1)
				go func() { defer wg.Done(); n.stop() }()
			}
		}
		wg.Wait()
	})
}
