package cronjob

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/bramble-edge/bramble/api"
)

// maxMissed is how many missed start times the controller counts before
// it reports the CronJob as having missed too many (it still starts the
// latest), as upstream does.
const maxMissed = 100

// schedule is a CronJob's schedule read in its time zone.
type schedule struct {
	sched *api.Schedule
	loc   *time.Location
}

func scheduleOf(cj *batchv1.CronJob) (*schedule, error) {
	sched, err := api.ParseSchedule(cj.Spec.Schedule)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", cj.Spec.Schedule, err)
	}
	loc := time.UTC
	if tz := cj.Spec.TimeZone; tz != nil {
		if loc, err = time.LoadLocation(*tz); err != nil {
			return nil, fmt.Errorf("time zone %q: %w", *tz, err)
		}
	}
	return &schedule{sched: sched, loc: loc}, nil
}

// next is the first start time after t.
func (s *schedule) next(t time.Time) time.Time { return s.sched.Next(t.In(s.loc)) }

// lastMissed returns the latest start time in (earliest, now], or the
// zero time when there is none, and how many such times there were (up
// to maxMissed+1). earliest is the last schedule time, else the
// creation time, moved up to now - startingDeadlineSeconds when that is
// later: older start times can no longer be met.
func (s *schedule) lastMissed(cj *batchv1.CronJob, now time.Time) (time.Time, int) {
	earliest := cj.CreationTimestamp.Time
	if t := cj.Status.LastScheduleTime; t != nil {
		earliest = t.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if deadline := now.Add(-time.Duration(*d) * time.Second); deadline.After(earliest) {
			earliest = deadline
		}
	}
	var last time.Time
	n := 0
	for t := s.next(earliest); !t.IsZero() && !t.After(now); t = s.next(t) {
		last, n = t, n+1
		if n > maxMissed {
			return s.latestBefore(now, last), n
		}
	}
	return last, n
}

// latestBefore finds the latest start time not after now without walking
// every missed one: it looks back over growing windows (found is a start
// time already known to be missed).
func (s *schedule) latestBefore(now, found time.Time) time.Time {
	for _, back := range []time.Duration{time.Hour, 24 * time.Hour, 32 * 24 * time.Hour, 367 * 24 * time.Hour} {
		from := now.Add(-back)
		if from.Before(found) {
			from = found
		}
		var last time.Time
		for t := s.next(from); !t.IsZero() && !t.After(now); t = s.next(t) {
			last = t
		}
		if !last.IsZero() {
			return last
		}
	}
	return found
}

// jobName is the Job made for start time t: the CronJob's name and t in
// minutes since the epoch, as upstream names them.
func jobName(cj *batchv1.CronJob, t time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, t.Unix()/60)
}
