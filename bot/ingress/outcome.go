package ingress

import "github.com/google/go-github/v60/github"

// Outcomes, the "outcome" label of the deliveries metric.
const (
	// Answered at ingress.
	outcomeQueued       = "queued"       // accepted into the queue, 202
	outcomePing         = "ping"         // ping answered 200
	outcomeIgnored      = "ignored"      // no handler for the event, 202 and dropped
	outcomeDuplicate    = "duplicate"    // delivery already accepted, 200
	outcomeUnauthorized = "unauthorized" // signature missing, malformed or wrong, 401
	outcomeTooLarge     = "too_large"    // body over MaxBodyBytes, 413
	outcomeBadRequest   = "bad_request"  // missing header, malformed payload, 400
	outcomeQueueFull    = "queue_full"   // queue at capacity, 503
	outcomeUnavailable  = "unavailable"  // not started or shutting down, 503

	// Recorded by the workers.
	outcomeProcessed = "processed" // handler returned nil
	outcomeFailed    = "failed"    // payload did not decode, or handler returned an error
	outcomePanicked  = "panicked"  // handler panicked
	outcomeDropped   = "dropped"   // not handled: Shutdown's deadline passed first
)

// eventUnknown labels deliveries whose event name go-github does not know
// (or that had none), so that unauthenticated headers cannot grow the
// metric's cardinality.
const eventUnknown = "unknown"

// knownEvents is the set of webhook event names go-github can decode.
var knownEvents = func() map[string]bool {
	m := make(map[string]bool)
	for _, name := range github.MessageTypes() {
		m[name] = true
	}
	return m
}()

// eventLabel returns the metric label for an X-GitHub-Event header value.
func eventLabel(name string) string {
	if knownEvents[name] {
		return name
	}
	return eventUnknown
}

// count records one delivery outcome.
func (s *Server) count(event, outcome string) {
	s.metrics.Deliveries.WithLabelValues(eventLabel(event), outcome).Inc()
}
