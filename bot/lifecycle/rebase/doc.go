// Package rebase keeps drafts current (issue #27 §4, kptdev/porch #932):
// when a revision <pkg>/v<N> publishes, the other drafts of the same
// package (branches drafts/<pkg>/<ws>) forked before it are behind it.
// Each is rebased by the 3-way merge of kpt pkg update (internal/update,
// resource-merge), with the draft's fork point as origin, the published
// revision as updated and the draft as local, and the result is pushed as
// one porchbot merge commit "Rebase <pkg> on <pkg>/v<N>" whose parents are
// the draft's head and the published commit: the draft keeps its history,
// its merge base with the deployment branch becomes the revision, so its
// proposal's diff shows only the draft's own changes against it, and it
// merges cleanly.
//
//	merge.go      the pure merge of one draft: file by file, the files both sides changed through update.Merge
//	decide.go     the pure decision whether a draft is behind and can be rebased
//	draft.go      one draft: facts read from the git cache, the merge, the commit pushed under a lease
//	drafts.go     the drafts of what a publish tagged, bounded; lifecycle.rebaseDrafts
//	conflicts.go  the comment listing conflicts on the draft's open proposal, once per revision
//
// Nothing is forced: the push carries the draft's head as read as its
// lease, and a draft that moved meanwhile is left for the next publish. A draft whose package the merge leaves as it is is not touched
// (its approvals stay); conflicts are never pushed. The push is the bot's
// own, not a "Render" commit, so its push event renders the rebased draft
// as any push to a draft. Cost: no REST call per rebased draft (a git
// push); a conflicting draft with an open proposal at most three (the
// open pull requests, listed once per publish; its comments; one comment).
// docs/drafts.md says why the commit is a merge commit.
package rebase
