package logs

import (
	"context"
	"fmt"
	"net/http"
)

// serveMetrics answers a metrics request: the rendered metrics, sent in
// chunks under the same window as a log.
func (s *stream) serveMetrics(ctx context.Context) error {
	if s.h.cfg.Metrics == nil {
		return &codedError{http.StatusNotFound, fmt.Errorf("node %s serves no metrics", s.h.cfg.Node)}
	}
	body, err := s.h.cfg.Metrics(s.req.Path)
	if err != nil {
		return fmt.Errorf("node %s metrics %s: %w", s.h.cfg.Node, s.req.Path, err)
	}
	return s.emit(ctx, body)
}
