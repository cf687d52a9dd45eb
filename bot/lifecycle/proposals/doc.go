// Package proposals holds the steps people ask for on drafts and
// proposals: open a proposal for a draft (propose.go), reject one
// (reject.go), propose a deletion (delete.go), start new drafts — init,
// edit, rollback (newdraft.go) and clone (clone.go) — and list packages,
// drafts and proposals (list.go), with the replies to mistaken requests
// (mistakes.go).
package proposals
