package api

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed CronJob schedule: five cron fields (minute, hour,
// day of month, month, day of week), a macro (@hourly, @daily, ...) or
// "@every <duration>", as upstream's CronJob controller accepts them.
type Schedule struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i allowed
	domStar, dowStar              bool
	every                         time.Duration
}

var cronMacros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i
}

var cronFields = []cronField{
	{name: "minute", max: 59},
	{name: "hour", max: 23},
	{name: "day of month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: strings.Fields("jan feb mar apr may jun jul aug sep oct nov dec")},
	{name: "day of week", max: 7, names: strings.Fields("sun mon tue wed thu fri sat")},
}

// ParseSchedule parses a CronJob's spec.schedule.
func ParseSchedule(spec string) (*Schedule, error) {
	spec = strings.TrimSpace(spec)
	if d, ok := strings.CutPrefix(spec, "@every "); ok {
		every, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || every < time.Second {
			return nil, fmt.Errorf("@every: %q is not a duration of at least 1s", d)
		}
		return &Schedule{every: every}, nil
	}
	if strings.HasPrefix(spec, "@") {
		m, ok := cronMacros[strings.ToLower(spec)]
		if !ok {
			return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
		}
		spec = m
	}
	parts := strings.Fields(spec)
	if len(parts) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(parts), spec)
	}
	s := &Schedule{domStar: parts[2] == "*" || parts[2] == "?", dowStar: parts[4] == "*" || parts[4] == "?"}
	for i, dst := range []*uint64{&s.minute, &s.hour, &s.dom, &s.month, &s.dow} {
		bits, err := cronFields[i].parse(parts[i])
		if err != nil {
			return nil, err
		}
		*dst = bits
	}
	if s.dow&(1<<7) != 0 { // 7 is Sunday too
		s.dow |= 1
	}
	return s, nil
}

// parse reads a comma-separated list of "*", "a", "a-b", each with an
// optional "/step".
func (f cronField) parse(expr string) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(expr, ",") {
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("%s: bad step %q", f.name, stepStr)
			}
			step = min(n, f.max+1) // a larger step selects the range's start alone, as this one does
		}
		lo, hi, err := f.bounds(rng, hasStep)
		if err != nil {
			return 0, err
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, nil
}

func (f cronField) bounds(rng string, hasStep bool) (int, int, error) {
	if rng == "*" || rng == "?" {
		return f.min, f.max, nil
	}
	a, b, isRange := strings.Cut(rng, "-")
	lo, err := f.value(a)
	if err != nil {
		return 0, 0, err
	}
	hi := lo
	if isRange {
		if hi, err = f.value(b); err != nil {
			return 0, 0, err
		}
	} else if hasStep {
		hi = f.max
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("%s: beginning of range (%d) beyond end of range (%d): %s", f.name, lo, hi, rng)
	}
	return lo, hi, nil
}

func (f cronField) value(s string) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: failed to parse int from %s", f.name, s)
	}
	if v < f.min || v > f.max {
		return 0, fmt.Errorf("%s: %d out of range [%d, %d]", f.name, v, f.min, f.max)
	}
	return v, nil
}
