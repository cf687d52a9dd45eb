// Package bot is porchbot's webhook ingress: it receives GitHub webhook
// deliveries, authenticates them, and hands them to per-event handlers
// through a bounded, per-key ordered work queue.
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
//  5. Events for which no Handler is registered are answered 202 and dropped,
//     and counted with outcome "ignored": GitHub only sends the events the
//     App subscribed to, so an unhandled event is a configuration mismatch,
//     not a failure worth a redelivery.
//  6. A delivery whose X-GitHub-Delivery was already accepted is answered
//     200 "duplicate" and not processed again. Deliveries are remembered
//     only once they are accepted into the queue, so one refused with 503
//     can be redelivered.
//  7. The event is queued and answered 202. A full queue, a server that is
//     not started yet, or one shutting down answers 503.
//
// Bodies are JSON objects {"message": "..."}, as GitHub's own API answers.
//
// The ingress path does not decode the typed go-github event: it validates
// the JSON and extracts action, installation id and repository in a single
// pass (see envelope.go), which is an order of magnitude cheaper. The worker
// decodes the typed event with github.ParseWebHook before calling the
// handler, so Event.Payload is always set when a Handler runs.
//
// # Queue
//
// Accepted events wait in a bounded queue. Events with the same key (by
// default the repository full name, see KeyFunc) are handled one at a time,
// in arrival order; events with different keys are handled in parallel by
// Options.Workers workers. A handler that panics is recovered and counted;
// the worker carries on.
//
// # Metrics
//
// The server updates the collectors of internal/metrics: deliveries by
// event and outcome (see the Outcome constants), queue depth and handler
// duration.
package bot
