package ingress

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

var (
	errNotStarted   = errors.New("not started")
	errShuttingDown = errors.New("shutting down")
)

// serveHealthz answers 200 as long as the process serves HTTP.
func (s *Server) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	writeMessage(w, http.StatusOK, "ok")
}

// serveReadyz answers 200 when the server accepts deliveries, else 503 with
// the reason.
func (s *Server) serveReadyz(w http.ResponseWriter, r *http.Request) {
	if err := s.readiness(r.Context()); err != nil {
		writeMessage(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeMessage(w, http.StatusOK, "ready")
}

// readiness reports why the server cannot take deliveries, or nil.
func (s *Server) readiness(ctx context.Context) error {
	switch s.currentState() {
	case stateNew:
		return errNotStarted
	case stateStopping:
		return errShuttingDown
	}
	if s.opts.Ready != nil {
		if err := s.opts.Ready(ctx); err != nil {
			return fmt.Errorf("not ready: %w", err)
		}
	}
	return nil
}
