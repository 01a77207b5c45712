package api

import (
	"strings"
	"testing"
	"time"
)

func TestScheduleNext(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatalf("load zone: %v", err)
	}
	from := time.Date(2026, 11, 26, 23, 47, 30, 0, time.UTC) // a Thursday
	tests := []struct {
		spec string
		at   time.Time
		want string
	}{
		{"*/5 * * * *", from, "2026-11-26T23:50:00Z"},
		{"@hourly", from, "2026-11-27T00:00:00Z"},
		{"0 3 * * mon-fri", from, "2026-11-27T03:00:00Z"},
		{"0 3 * * 6,7", from, "2026-11-28T03:00:00Z"},
		{"30 2 1 * *", from, "2026-12-01T02:30:00Z"},
		{"0 0 13 * 5", from, "2026-11-27T00:00:00Z"}, // day of month or Friday
		{"@yearly", from, "2027-01-01T00:00:00Z"},
		{"0 0 30 2 *", from, "0001-01-01T00:00:00Z"},
		{"@every 90m", from, "2026-11-27T01:17:30Z"},
		{"30 2 * * *", time.Date(2026, 3, 28, 12, 0, 0, 0, berlin), "2026-03-30T02:30:00+02:00"}, // 02:30 does not exist on the 29th: skipped, as upstream's cron library does
	}
	for _, tc := range tests {
		s, err := ParseSchedule(tc.spec)
		if err != nil {
			t.Fatalf("%q: %v", tc.spec, err)
		}
		if got := s.Next(tc.at).Format(time.RFC3339); got != tc.want {
			t.Errorf("%q after %s: got %s, want %s", tc.spec, tc.at.Format(time.RFC3339), got, tc.want)
		}
	}
}

func TestParseScheduleErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"* * * *":      "expected exactly 5 fields",
		"60 * * * *":   "minute: 60 out of range [0, 59]",
		"* 5-2 * * *":  "hour: beginning of range (5) beyond end of range (2)",
		"* * 0 * *":    "day of month: 0 out of range",
		"* * * foo *":  "month: failed to parse int from foo",
		"*/0 * * * *":  `minute: bad step "0"`,
		"@fortnightly": "unrecognized descriptor",
		"@every 100ms": "at least 1s",
		"* * * * 8":    "day of week: 8 out of range",
	} {
		_, err := ParseSchedule(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", spec, err, want)
		}
	}
}
