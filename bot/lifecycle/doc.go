// Package lifecycle holds porchbot's package lifecycle steps — draft
// render, propose, approve, publish, delete, resync — written against small
// consumer-side interfaces of the GitHub API (satisfied by go-github's
// services) and a git cache. Nothing here touches HTTP handlers: the bot's
// event handlers (package bot) and commands (package bot/commands) call
// these steps with a Session opened for the event's repository.
//
// Every commit the bot makes carries Porch's `kpt:` trailer
// (packages.Trailer) and is pushed with a lease: a branch someone else
// moved is never overwritten.
package lifecycle
