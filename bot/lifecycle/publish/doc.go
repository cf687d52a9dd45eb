// Package publish publishes what merged: the verdict on each landing of
// the deployment branch (publish_verdict.go: approved, refused, waiting),
// the signed annotated tag pushed as a compare-and-swap and the release
// with its notes (publish_release.go, revision_sign.go, release_notes.go),
// refusals (publish_refusal.go), landings waiting for an approver
// (publish_waiting.go, publish_approval.go), tags porchbot did not make
// reported and adopted (revision_adopt.go), and the package index kept on
// porch/index (index.go, index_asset.go).
package publish
