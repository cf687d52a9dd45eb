package ingress

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/metrics"
)

// serverState is the lifecycle of a Server: new → running → stopping.
type serverState int32

const (
	stateNew serverState = iota
	stateRunning
	stateStopping
)

// Server receives GitHub webhooks and dispatches them to Handlers.
type Server struct {
	opts       Options
	log        *logrus.Logger
	metrics    *metrics.Metrics
	handlers   Handlers
	key        KeyFunc
	verifier   *signatureVerifier
	deliveries *deliveryLog
	queue      *keyedQueue
	bodies     bodyBuffers

	state       atomic.Int32 // serverState
	lifecycle   sync.Mutex   // serialises Start and the begin of a stop
	stopping    chan struct{}
	workersDone chan struct{}
	workers     sync.WaitGroup
	hardStop    context.CancelFunc // cancels handler contexts; set by Start
}

// NewServer returns a Server configured by opts, not started.
func NewServer(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Server{
		opts:        opts,
		log:         opts.Logger,
		metrics:     opts.Metrics,
		handlers:    opts.Handlers,
		key:         opts.Key,
		verifier:    newSignatureVerifier(opts.WebhookSecret),
		deliveries:  newDeliveryLog(opts.DedupeSize),
		queue:       newKeyedQueue(opts.QueueSize, opts.Metrics.QueueDepth),
		stopping:    make(chan struct{}),
		workersDone: make(chan struct{}),
	}, nil
}

func (s *Server) currentState() serverState { return serverState(s.state.Load()) }

// Start starts the workers; webhooks are answered 503 until it is called.
// ctx supplies the values of the handlers' contexts; its cancellation begins
// a graceful stop (no more deliveries accepted, the queue drains), as
// Shutdown does, but does not cancel running handlers. Call Shutdown to
// wait for the drain. Start does nothing on a server already started or
// stopped.
func (s *Server) Start(ctx context.Context) {
	s.lifecycle.Lock()
	defer s.lifecycle.Unlock()
	if s.currentState() != stateNew {
		return
	}
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.hardStop = cancel
	for range s.opts.Workers {
		s.workers.Add(1)
		go s.work(base)
	}
	go func() {
		s.workers.Wait()
		cancel()
		close(s.workersDone)
	}()
	context.AfterFunc(ctx, s.stop)
	s.state.Store(int32(stateRunning))
	s.log.WithFields(logrus.Fields{
		"workers":     s.opts.Workers,
		"queue_size":  s.opts.QueueSize,
		"dedupe_size": s.opts.DedupeSize,
	}).Info("webhook server started")
}

// Shutdown stops accepting deliveries (they are answered 503), lets the
// workers handle every event accepted before, and returns once they have.
// If ctx ends first, running handlers see their context cancelled, the
// events still waiting are dropped, and Shutdown returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	select {
	case <-s.workersDone:
		return nil
	case <-ctx.Done():
		s.lifecycle.Lock()
		if s.hardStop != nil {
			s.hardStop()
		}
		s.lifecycle.Unlock()
		return fmt.Errorf("ingress: shutdown: %d events not handled: %w", s.queue.len(), ctx.Err())
	}
}

// stop begins a graceful stop; it is idempotent.
func (s *Server) stop() {
	s.lifecycle.Lock()
	defer s.lifecycle.Unlock()
	prev := s.currentState()
	if prev == stateStopping {
		return
	}
	s.state.Store(int32(stateStopping))
	close(s.stopping)
	s.queue.close()
	if prev == stateNew {
		close(s.workersDone) // no workers were started
		return
	}
	s.log.WithField("queued", s.queue.len()).Info("webhook server stopping: draining queue")
}

// WaitIdle blocks until no accepted event is waiting or being handled (or
// ctx ends). Tests and the demo use it to know the bot has caught up.
func (s *Server) WaitIdle(ctx context.Context) error {
	if err := s.queue.waitIdle(ctx); err != nil {
		return fmt.Errorf("ingress: waiting for the queue to empty: %w", err)
	}
	return nil
}
