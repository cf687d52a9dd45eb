package ingress

import "context"

// A Handler handles the events of one or more X-GitHub-Event kinds.
//
// Handle runs on a worker, never at the same time as another event with the
// same key (see KeyFunc). ev.Decode returns the go-github typed event; ev.Raw
// is valid until Handle returns. ctx carries a logger with the delivery's
// fields (LoggerFrom); it is cancelled only when Shutdown's deadline passes.
// A returned error is logged and counted; the delivery is not retried
// (GitHub redelivers only on request, and the periodic resync repairs what
// a failed event left undone).
type Handler interface {
	Handle(ctx context.Context, ev *Event) error
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, ev *Event) error

// Handle calls f(ctx, ev).
func (f HandlerFunc) Handle(ctx context.Context, ev *Event) error { return f(ctx, ev) }

// Handlers maps X-GitHub-Event names to their Handler.
type Handlers map[string]Handler
