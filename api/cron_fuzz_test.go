package api

import (
	"testing"
	"time"
)

// FuzzParseSchedule: any schedule a client sends is parsed or refused
// without a panic, and a parsed one's next start time is later than the
// time asked about (or never, as for a 30th of February).
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "@hourly", "@every 1h30m", "0 3 * * mon-fri", "1,2-9/3 0 1 jan,dec sun",
		"* * * * 7", "0 0 30 2 *", "5-1 * * * *", "*/0 * * * *", "@", "- - - - -", "99999999999999999999 * * * *"} {
		f.Add(s)
	}
	at := time.Date(2026, 11, 26, 23, 47, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchedule(spec)
		if err != nil {
			return
		}
		if next := s.Next(at); !next.IsZero() && !next.After(at) {
			t.Fatalf("%q: next %s is not after %s", spec, next, at)
		}
	})
}
