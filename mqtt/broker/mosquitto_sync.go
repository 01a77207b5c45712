package broker

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// MosquittoSync keeps the node sections of an external mosquitto's ACL
// file equal to the nodes that may connect (those holding a current
// certificate), and has mosquitto reload the file after each change, so a
// node that joins gets its subtree and a deleted node loses it, live
// sessions included. The server and viewer sections of the file are left
// as they are (`bramble mqtt credentials` and the packaging write those).
type MosquittoSync struct {
	cfg MosquittoSyncConfig

	mu      sync.Mutex
	written []string // node sections as last written; nil: not yet
	again   *time.Timer
	stopped bool
}

// MosquittoSyncConfig says where the ACL file and mosquitto's pid file
// are. ACLFile and PIDFile are required.
type MosquittoSyncConfig struct {
	ACLFile string
	PIDFile string
	// Server, when set, is the CN the server connects to mosquitto with:
	// its section is added when the file lacks it (a missing file would
	// otherwise lock the server out).
	Server string
	Logger *slog.Logger // default slog.Default()
	// Resignal is how long after a reload mosquitto is signalled once
	// more: mosquitto forgets a SIGHUP that arrives while it reloads, so
	// the last change of a burst could otherwise go unread. Default 300ms.
	Resignal time.Duration
}

// NewMosquittoSync checks cfg and returns a syncer; nothing is written
// before the first SetNodes.
func NewMosquittoSync(cfg MosquittoSyncConfig) (*MosquittoSync, error) {
	if cfg.ACLFile == "" || cfg.PIDFile == "" {
		return nil, errors.New("mosquitto ACL: the ACL file and mosquitto's pid file are both required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Resignal <= 0 {
		cfg.Resignal = 300 * time.Millisecond
	}
	return &MosquittoSync{cfg: cfg}, nil
}

// SetNodes makes the file's node sections exactly nodes; when that
// changes the file it is written (atomically) and mosquitto is signalled
// before SetNodes returns, and once more a moment later. Calls are
// serialised, so the file always ends with the latest set.
func (s *MosquittoSync) SetNodes(nodes []string) error {
	want := slices.Clone(nodes)
	slices.Sort(want)
	want = slices.Compact(want)
	if want == nil {
		want = []string{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || (s.written != nil && slices.Equal(s.written, want)) {
		return nil
	}
	err := UpdateMosquittoACL(s.cfg.ACLFile, func(a *MosquittoACL) {
		a.Nodes = want
		if s.cfg.Server != "" && !slices.Contains(a.Servers, s.cfg.Server) {
			a.Servers = append(a.Servers, s.cfg.Server)
		}
	})
	if err != nil {
		return err
	}
	s.written = want
	if err := ReloadMosquitto(s.cfg.PIDFile); err != nil {
		return err
	}
	s.resignalLocked()
	return nil
}

// resignalLocked (re)arms the one trailing SIGHUP of a burst.
func (s *MosquittoSync) resignalLocked() {
	if s.again != nil {
		s.again.Reset(s.cfg.Resignal)
		return
	}
	s.again = time.AfterFunc(s.cfg.Resignal, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.stopped {
			return
		}
		if err := ReloadMosquitto(s.cfg.PIDFile); err != nil {
			s.cfg.Logger.Error("mosquitto did not get the signal to reload its ACL", "file", s.cfg.ACLFile, "err", err)
		}
	})
}

// Stop cancels a pending signal; later SetNodes calls do nothing.
func (s *MosquittoSync) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.again != nil {
		s.again.Stop()
	}
}
