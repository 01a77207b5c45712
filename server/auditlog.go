package server

import (
	"fmt"
	"net/http"

	"github.com/bramble-edge/bramble/server/audit"
	"github.com/bramble-edge/bramble/server/auth"
)

// AuditConfig is the audit log's part of Config (docs/AUDIT.md).
type AuditConfig struct {
	Path       string // --audit-log-path: empty is no audit log, "-" standard output
	PolicyFile string // --audit-policy-file: empty is audit.DefaultPolicy (Metadata for all)
	MaxAgeDays int    // --audit-log-maxage
	MaxBackups int    // --audit-log-maxbackup
	MaxSizeMB  int    // --audit-log-maxsize (0: 100)
}

func (c *AuditConfig) validate() error {
	if c.Path == "" && c.PolicyFile != "" {
		return fmt.Errorf("--audit-policy-file %s: needs --audit-log-path", c.PolicyFile)
	}
	for flag, v := range map[string]int{"--audit-log-maxage": c.MaxAgeDays,
		"--audit-log-maxbackup": c.MaxBackups, "--audit-log-maxsize": c.MaxSizeMB} {
		if v < 0 {
			return fmt.Errorf("%s %d: must not be negative", flag, v)
		}
	}
	return nil
}

// withAudit wraps h (the API and the join endpoints) in the audit log
// when --audit-log-path is set; the file is closed after the listener
// stops.
func (s *Server) withAudit(cfg AuditConfig, h http.Handler) (http.Handler, error) {
	if cfg.Path == "" {
		return h, nil
	}
	policy := audit.DefaultPolicy()
	if cfg.PolicyFile != "" {
		var err error
		if policy, err = audit.LoadPolicy(cfg.PolicyFile); err != nil {
			return nil, err
		}
	}
	f, err := audit.OpenFile(audit.FileConfig{Path: cfg.Path, MaxSizeMB: cfg.MaxSizeMB,
		MaxBackups: cfg.MaxBackups, MaxAgeDays: cfg.MaxAgeDays, Log: s.log})
	if err != nil {
		return nil, err
	}
	s.stops = append(s.stops, func() {
		if err := f.Close(); err != nil {
			s.log.Error("audit log: close", "err", err)
		}
	})
	s.log.Info("audit log", "path", cfg.Path, "policy", cfg.PolicyFile)
	return audit.NewLogger(policy, f, s.log, nil).Handler(h), nil
}

// auditedAuthn notes whom it authenticated in the request's audit record,
// for handlers beside the API that authenticate for themselves (the
// nodes' relist).
type auditedAuthn struct{ auth.Authenticator }

func (a auditedAuthn) Authenticate(r *http.Request) (*auth.User, error) {
	u, err := a.Authenticator.Authenticate(r)
	if err == nil {
		audit.SetUser(r.Context(), u.Name, u.Groups)
	}
	return u, err
}
