// Command hollow runs simulated bramble nodes against a server:
//
//	go run ./bench/hollow -server https://127.0.0.1:6443 -token "$(cat /var/lib/bramble/server/token)" \
//	    -nodes 100 [-prefix hollow] [-arch arm64] [-cpu 4 -memory 4Gi] [-labels k=v,...] [-heartbeat 10s]
//	    [-join-workers 8] [-stagger 5ms] [-report-receipts configmaps/default/shared]
//
// Each node joins (once: credentials are kept under -state-dir), connects
// to MQTT with its own certificate, heartbeats, and reports the pods bound
// to it Running and Ready; pods with restartPolicy Never or OnFailure
// report Succeeded a second later. SIGINT or SIGTERM stops every node: they
// go silent like Raspberry Pis that lost power. Several processes with
// different -prefix values can run against one server. Each node keeps an
// MQTT connection open, so the process raises its open-file limit to the
// hard limit; very large fleets are split over several processes.
// -report-receipts makes stdout carry a line per desired Event that holds
// the object named, once every node started a line "running", and "gc <n>"
// when the process's completed collections changed (a benchmark in another
// process times its deliveries with them and tells which ones the agents'
// collector ran in).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hollow:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cfg, level, report, err := parseFlags(args)
	if err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	var rep *receiptReporter
	if report != "" {
		ref, err := parseObjectRef(report)
		if err != nil {
			return err
		}
		rep = newReceiptReporter(ref, os.Stdout)
		cfg.OnReceive = rep.onReceive
	}
	if limit, err := raiseFileLimit(); err != nil {
		cfg.Logger.Warn("cannot raise the open file limit", "err", err)
	} else {
		cfg.Logger.Debug("open file limit", "limit", limit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	begin := time.Now()
	fleet, err := hollownode.Start(ctx, cfg)
	if err != nil {
		return err
	}
	if rep != nil {
		go rep.flushEvery(ctx, 5*time.Millisecond)
		rep.say("running")
	}
	cfg.Logger.Info("hollow nodes running; SIGINT or SIGTERM stops them",
		"nodes", cfg.Nodes, "took", time.Since(begin).Round(time.Millisecond), "pid", os.Getpid())
	<-ctx.Done()
	cfg.Logger.Info("stopping hollow nodes")
	fleet.Stop()
	return nil
}

func parseFlags(args []string) (hollownode.Config, slog.Level, string, error) {
	fs := flag.NewFlagSet("hollow", flag.ContinueOnError)
	var cfg hollownode.Config
	var cpu, memory, labels, logLevel, storage, report string
	fs.StringVar(&cfg.Server, "server", "", "API server URL, https://host:port (required)")
	fs.StringVar(&cfg.Token, "token", "", "join token (required)")
	fs.IntVar(&cfg.Nodes, "nodes", 1, "number of nodes")
	fs.StringVar(&cfg.Prefix, "prefix", "hollow", "node name prefix: nodes are PREFIX-0 .. PREFIX-(N-1)")
	fs.StringVar(&cfg.Arch, "arch", "arm64", "architecture the nodes report")
	fs.StringVar(&cpu, "cpu", "4", "CPU capacity of each node")
	fs.StringVar(&memory, "memory", "4Gi", "memory capacity of each node")
	fs.StringVar(&storage, "local-storage", "", "local-path capacity each node reports, e.g. 64Gi (default: none)")
	fs.StringVar(&labels, "labels", "", "extra node labels, k=v,k2=v2")
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", 10*time.Second, "heartbeat interval")
	fs.IntVar(&cfg.UsagePods, "usage-pods", 0, "pods of synthetic resource usage each heartbeat carries (0: none)")
	fs.StringVar(&cfg.StateDir, "state-dir", "", "where node credentials are kept (default $TMPDIR/bramble-hollow)")
	fs.DurationVar(&cfg.Stagger, "stagger", 5*time.Millisecond, "pause between starting two nodes")
	fs.IntVar(&cfg.JoinWorkers, "join-workers", 8, "how many nodes join at once")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&report, "report-receipts", "", "resource/namespace/name: print each node's receipt of it on stdout")
	if err := fs.Parse(args); err != nil {
		return cfg, 0, "", err
	}
	if fs.NArg() > 0 {
		return cfg, 0, "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.CPU, err = resource.ParseQuantity(cpu); err != nil {
		return cfg, 0, "", fmt.Errorf("-cpu %q: %w", cpu, err)
	}
	if cfg.Memory, err = resource.ParseQuantity(memory); err != nil {
		return cfg, 0, "", fmt.Errorf("-memory %q: %w", memory, err)
	}
	if storage != "" {
		if cfg.LocalStorage, err = resource.ParseQuantity(storage); err != nil {
			return cfg, 0, "", fmt.Errorf("-local-storage %q: %w", storage, err)
		}
	}
	if cfg.Labels, err = hollownode.ParseLabels(labels); err != nil {
		return cfg, 0, "", err
	}
	if report != "" {
		if _, err := parseObjectRef(report); err != nil {
			return cfg, 0, "", err
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return cfg, 0, "", fmt.Errorf("-log-level %q: want debug, info, warn or error", logLevel)
	}
	return cfg, level, report, nil
}
