// Package bot is porchbot's GitHub App: one thin handler per webhook event
// (handle_<event>.go: decode, log, call the reactor) and the App behind
// them (app.go, app_<area>.go), which carries the events into the
// lifecycle (bot/lifecycle) and the /porch commands (bot/commands).
//
// The webhook ingress (signature, size cap, dedupe, the bounded queue with
// per-repository order, the workers) is package bot/ingress; bot gives it
// the handlers (DefaultHandlers, App.Handlers) and NewServer builds it.
package bot
