// Package rlimit raises the server's open file limit at start. Every
// connected agent holds descriptors on the server (its MQTT connection,
// and HTTPS ones while it joins or relists), and a shell's usual limit
// (1,024, or 20,000 on some hosts) ends a server just below that many
// agents, with "too many open files" on accept.
//
// Go (since 1.19) already lifts the soft limit to the hard limit when the
// process starts; what it cannot do is raise the hard limit. A server
// running as root (or with CAP_SYS_RESOURCE) may, up to the kernel's
// fs.nr_open, so Raise does that and falls back to the hard limit
// otherwise.
package rlimit

import "log/slog"

// Limit is an RLIMIT_NOFILE pair.
type Limit struct {
	Soft, Hard uint64
}

// Result says what Raise found and left.
type Result struct {
	Before, After Limit
	// Refused is set when the hard limit could not be raised (no
	// CAP_SYS_RESOURCE): the soft limit went up to the old hard one.
	Refused bool
}

// RaiseLogged raises the limit and logs the outcome. A failure is only
// logged: the server then runs with the limit it has.
func RaiseLogged(log *slog.Logger) {
	res, err := Raise()
	switch {
	case err != nil:
		log.Warn("cannot raise the open file limit; every agent holds a descriptor", "err", err,
			"soft", res.Before.Soft, "hard", res.Before.Hard)
	case res.Refused:
		log.Info("open file limit raised to the hard limit; raising the hard limit needs CAP_SYS_RESOURCE (LimitNOFILE= in the systemd unit)",
			"soft", res.After.Soft, "hard", res.After.Hard, "was", res.Before.Soft)
	default:
		log.Info("open file limit", "soft", res.After.Soft, "hard", res.After.Hard, "was", res.Before.Soft)
	}
}
