// Package ingress is porchbot's webhook ingress: it receives GitHub webhook
// deliveries, authenticates them, and hands them to per-event handlers
// through a bounded, per-key ordered work queue. It knows nothing of the
// App: package bot gives it the handlers (handlers.DefaultHandlers, App.Handlers).
//
// # Ingress
//
// POST /api/github/hook applies these rules, in order:
//
//  1. The body is read through http.MaxBytesReader; a body larger than
//     Options.MaxBodyBytes is answered 413 and nothing is processed.
//  2. X-Hub-Signature-256 is verified (HMAC-SHA256, constant-time compare)
//     before anything else in the request is looked at. A missing, malformed
//     or wrong signature is answered 401; so is a request that carries only
//     the legacy SHA-1 X-Hub-Signature.
//  3. A missing X-GitHub-Event or X-GitHub-Delivery header, or a body that is
//     not a JSON object, is answered 400. Other methods than POST get 405.
//  4. ping is answered 200 and not queued.
//  5. An event with no Handler is answered 202 and dropped, and counted with
//     outcome "ignored": GitHub sends only the events the App subscribes to,
//     so an unhandled one is a subscription mismatch, not a failure worth a
//     redelivery (which a 4xx or 5xx would invite).
//  6. A delivery whose X-GitHub-Delivery was already accepted is answered
//     200 and not processed again. Deliveries are remembered only once they
//     are accepted into the queue, so one refused with 503 can be
//     redelivered; the last Options.DedupeSize ids are remembered.
//  7. The event is queued and answered 202. A full queue, a server not
//     started yet, or one shutting down answers 503.
//
// Answers are JSON objects {"message": "..."}, as GitHub's own API answers.
//
// Ingress does not decode the typed go-github event. It validates the JSON
// and extracts action, installation id and repository in one pass (see
// parseEnvelope). encoding/json cannot do it as cheaply within the same
// bounds: it matches keys case-insensitively and takes a top-level null
// for an object, so the exact rules need a map of raw members at each
// level (referenceEnvelope): 8 to 20 times the scanner's cost on a 25 KB
// push (BenchmarkParseEnvelopeStd against BenchmarkParseEnvelope), leaving
// a quarter of BenchmarkWebhookIngress's deliveries/s. Even a plain decode
// into a struct, which breaks those rules, costs 7 times as much or more
// and leaves about half of the deliveries/s (measured for issue #23,
// docs/architecture.md).
//
// Handlers decode the typed event on demand with Event.Decode: for a 25 KB
// push that decode costs more CPU than everything else a delivery needs, so
// it is paid only by the handlers that use it, on a worker.
//
// Request bodies are read into recycled buffers. Event.Raw therefore belongs
// to the server, like an http.Request's body: it is valid until the handler
// returns.
//
// # Queue
//
// Accepted events wait in a bounded queue (Options.QueueSize counts events
// waiting and running). Events with the same key (by default the repository
// full name, see KeyFunc) are handled one at a time, in arrival order;
// events with different keys are handled in parallel by Options.Workers
// workers. A handler that panics is recovered, logged with its stack and
// counted; the worker carries on. Shutdown drains the queue.
//
// # Metrics
//
// The server updates the collectors of internal/metrics: queue depth,
// handler duration by event, and deliveries by event and outcome. Outcomes
// are queued, ping, ignored, duplicate, unauthorized, too_large,
// bad_request, queue_full and unavailable (not started or shutting down) at
// ingress; processed, failed, panicked and dropped (Shutdown's deadline
// passed before the event was handled) once handled. The event label is
// "unknown" for names go-github does not know, so that unauthenticated
// headers cannot grow the metric's cardinality.
package ingress
