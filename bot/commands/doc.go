// Package commands runs the /porch commands of pull request and issue
// comments (SPEC §4), in Prow's manner:
//
//   - the verbs are data (Verbs, help.go): name, argument syntax, summary,
//     who may run them and where; the help table is rendered from it;
//   - Parse (parse.go) turns a comment body into Commands, one per line
//     starting with /porch outside code fences and quotes, with shell-like
//     quoting; mistakes are values (ParseError) with a message for the
//     commenter and, for unknown verbs, "did you mean" suggestions;
//   - Runner.Handle (run.go) reacts 👀 once, checks the commenter's
//     permission once, runs each command against the small Lifecycle
//     interface (lifecycle.go) and replies with one comment listing every
//     command's outcome or error. Comments by bots are ignored.
//
// Errors meant for the commenter are values too: *core.RequestError
// and UserError messages are shown as they are; anything else is logged
// and shown as an internal error.
package commands
