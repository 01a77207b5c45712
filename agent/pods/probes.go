package pods

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
)

// probeState follows one probe of a running container.
type probeState struct {
	p                   *corev1.Probe
	ok                  bool
	successes, failures int
	lastRun             time.Time
}

// probeSet holds a container's probes; start is when it started.
type probeSet struct {
	start                        time.Time
	startup, liveness, readiness *probeState
}

func newProbeSet(c *corev1.Container, now time.Time) probeSet {
	ps := probeSet{start: now}
	if c.StartupProbe != nil {
		ps.startup = &probeState{p: c.StartupProbe}
	}
	if c.LivenessProbe != nil {
		ps.liveness = &probeState{p: c.LivenessProbe, ok: true}
	}
	if c.ReadinessProbe != nil {
		ps.readiness = &probeState{p: c.ReadinessProbe}
	}
	return ps
}

func (ps *probeSet) started() bool { return ps.startup == nil || ps.startup.ok }
func (ps *probeSet) ready() bool   { return ps.readiness == nil || ps.readiness.ok }

// reset forgets results when the container exits.
func (ps *probeSet) reset() {
	if ps.readiness != nil {
		ps.readiness.ok = false
	}
}

func orDefault(v, def int32) int32 {
	if v <= 0 {
		return def
	}
	return v
}

// due says whether the probe should run now: after the initial delay,
// once per period.
func (s *probeState) due(now, start time.Time) bool {
	if now.Before(start.Add(time.Duration(s.p.InitialDelaySeconds) * time.Second)) {
		return false
	}
	period := time.Duration(orDefault(s.p.PeriodSeconds, 10)) * time.Second
	return s.lastRun.IsZero() || !now.Before(s.lastRun.Add(period))
}

// record takes one result; ok flips only after successThreshold
// successes or failureThreshold failures in a row.
func (s *probeState) record(now time.Time, success bool) {
	s.lastRun = now
	if success {
		s.successes, s.failures = s.successes+1, 0
		if s.successes >= int(orDefault(s.p.SuccessThreshold, 1)) {
			s.ok = true
		}
		return
	}
	s.failures, s.successes = s.failures+1, 0
	if s.failures >= int(orDefault(s.p.FailureThreshold, 3)) {
		s.ok = false
	}
}

// runProbes runs the container's due probes; false means it must be
// killed (startup or liveness failed).
func (w *worker) runProbes(ctx context.Context, pod *corev1.Pod, c *corev1.Container, st *ctrState) bool {
	now := w.m.cfg.Clock.Now()
	ps := &st.probes
	step := func(s *probeState, kind string) {
		if s != nil && s.due(now, ps.start) {
			ok, out := w.probeOutput(ctx, c, st.id, s.p)
			if !ok {
				w.probeEvent(pod, c, kind, out)
			}
			s.record(now, ok)
		}
	}
	if !ps.started() {
		step(ps.startup, "Startup")
		if ps.startup.failures >= int(orDefault(ps.startup.p.FailureThreshold, 3)) {
			w.log.Info("startup probe failed, restarting", "container", c.Name)
			w.event(pod, c.Name, events.Normal, "Killing", "Container %s failed startup probe, will be restarted", c.Name)
			return false
		}
		return true
	}
	step(ps.liveness, "Liveness")
	if ps.liveness != nil && !ps.liveness.ok {
		w.log.Info("liveness probe failed, restarting", "container", c.Name)
		w.event(pod, c.Name, events.Normal, "Killing", "Container %s failed liveness probe, will be restarted", c.Name)
		return false
	}
	step(ps.readiness, "Readiness")
	return true
}
