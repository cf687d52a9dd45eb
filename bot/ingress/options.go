package ingress

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/metrics"
)

// Defaults applied by NewServer to zero Options fields.
const (
	DefaultMaxBodyBytes = 25 << 20
	DefaultQueueSize    = 1024
	DefaultDedupeSize   = 10000
	minDefaultWorkers   = 4
)

// Options configures a Server. Only WebhookSecret is required.
type Options struct {
	// WebhookSecret is the GitHub App webhook secret. Required.
	WebhookSecret []byte
	// MaxBodyBytes caps the request body; larger bodies are answered 413.
	// Default 25 MiB, GitHub's own cap.
	MaxBodyBytes int64
	// QueueSize bounds the events queued or being handled; beyond it
	// deliveries are answered 503. Default 1024.
	QueueSize int
	// Workers is the number of events handled at once.
	// Default 2*GOMAXPROCS, at least 4.
	Workers int
	// DedupeSize is how many accepted delivery ids are remembered to refuse
	// duplicates (oldest forgotten first). Default 10000.
	DedupeSize int
	// Handlers maps X-GitHub-Event names to handlers (handlers.DefaultHandlers,
	// App.Handlers). nil or empty handles nothing; bot.NewServer fills in
	// handlers.DefaultHandlers when it is nil.
	Handlers Handlers
	// Key names the ordering key of an event. Default RepositoryKey.
	Key KeyFunc
	// Metrics receives the server's metrics and is served on /metrics.
	// nil means a fresh metrics.New().
	Metrics *metrics.Metrics
	// Logger is the server's logger. nil means logrus.StandardLogger().
	Logger *logrus.Logger
	// Ready reports whether the server's dependencies are ready, for
	// /readyz. nil means ready once started.
	Ready func(ctx context.Context) error
}

// withDefaults returns a copy of o with defaults applied, or an error when o
// cannot make a working server.
func (o Options) withDefaults() (Options, error) {
	if len(o.WebhookSecret) == 0 {
		return o, errors.New("ingress: Options.WebhookSecret is required")
	}
	o.WebhookSecret = append([]byte(nil), o.WebhookSecret...)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.Workers <= 0 {
		o.Workers = max(minDefaultWorkers, 2*runtime.GOMAXPROCS(0))
	}
	if o.DedupeSize <= 0 {
		o.DedupeSize = DefaultDedupeSize
	}
	o.Handlers = maps.Clone(o.Handlers)
	for name, h := range o.Handlers {
		if h == nil {
			return o, fmt.Errorf("ingress: handler for event %q is nil", name)
		}
		if name == eventPing || github.EventForType(name) == nil {
			return o, fmt.Errorf("ingress: cannot handle event %q: not a webhook event go-github can decode", name)
		}
	}
	if o.Key == nil {
		o.Key = RepositoryKey
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New()
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	return o, nil
}
