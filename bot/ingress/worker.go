package ingress

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/logfields"
)

// work handles queued events until the queue is closed and drained.
func (s *Server) work(ctx context.Context) {
	defer s.workers.Done()
	for {
		l, ev, ok := s.queue.next()
		if !ok {
			return
		}
		s.handle(ctx, ev)
		s.release(ev)
		s.queue.done(l)
	}
}

// handle runs ev's handler and records the outcome. It never panics.
func (s *Server) handle(ctx context.Context, ev *Event) {
	log := &eventLog{log: s.log, ev: ev}
	if err := ctx.Err(); err != nil {
		s.count(ev.Name, outcomeDropped)
		log.get().WithError(err).Warn("event dropped: server stopped before it was handled")
		return
	}

	start := time.Now()
	// The delivery's id on every line of its work, in the lifecycle and
	// the git cache too (internal/logfields).
	ctx = logfields.With(ctx, logrus.Fields{"delivery": ev.DeliveryID})
	outcome, err := s.invoke(contextWithEventLog(ctx, log), ev)
	elapsed := time.Since(start)
	s.metrics.HandlerDuration.WithLabelValues(ev.Name).Observe(elapsed.Seconds())
	s.count(ev.Name, outcome)

	switch outcome {
	case outcomeProcessed:
		if s.log.IsLevelEnabled(logrus.DebugLevel) {
			log.get().WithField("duration", elapsed).Debug("event handled")
		}
	case outcomePanicked:
		fields := logrus.Fields{"duration": elapsed}
		if pe, ok := errors.AsType[*panicError](err); ok {
			fields["stack"] = string(pe.stack)
		}
		log.get().WithFields(fields).WithError(err).Error("event handler panicked")
	default:
		log.get().WithField("duration", elapsed).WithError(err).Error("event handler failed")
	}
}

// release recycles ev's body buffer once its handler has returned.
func (s *Server) release(ev *Event) {
	ev.Raw = nil
	s.bodies.put(ev.body)
	ev.body = nil
}

// invoke calls the handler, turning a panic into outcomePanicked.
func (s *Server) invoke(ctx context.Context, ev *Event) (outcome string, err error) {
	defer func() {
		if r := recover(); r != nil {
			outcome = outcomePanicked
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	if err := s.handlers[ev.Name].Handle(ctx, ev); err != nil {
		return outcomeFailed, fmt.Errorf("handle %s: %w", ev.Name, err)
	}
	return outcomeProcessed, nil
}

// panicError carries a recovered panic and the stack where it happened.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }
