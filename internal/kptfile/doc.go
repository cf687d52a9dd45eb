// Package kptfile reads, validates, edits and writes Kptfiles (kpt.dev/v1)
// through kyaml, keeping the file's comments and field order.
//
// Reading is strict, as kpt is: an unknown field is an error, and every error
// names the file, line and column (a *ValidationError listing them all).
// Edits (SetUpstream, SetUpstreamLock, SetDescription, AddReadinessGate, …)
// change the parsed document in place; fields they add go where kpt would
// write them, fields they change keep their comments, and Bytes returns the
// original bytes untouched when nothing was edited.
//
// New reproduces the Kptfile `kpt pkg init` writes, byte for byte, and
// InitFiles the README.md and package-context.yaml written with it.
package kptfile
