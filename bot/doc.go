// Package bot is porchbot's GitHub App: the App (app.go, app_<area>.go)
// behind the thin webhook handlers of bot/handlers (one per event: decode,
// log, call the reactor), which carries the events into the lifecycle
// (bot/lifecycle) and the /porch commands (bot/commands).
//
// The webhook ingress (signature, size cap, dedupe, the bounded queue with
// per-repository order, the workers) is package bot/ingress; bot gives it
// the handlers (handlers.DefaultHandlers, App.Handlers) and NewServer
// builds it.
package bot
