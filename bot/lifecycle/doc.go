// Package lifecycle is the map of porchbot's package lifecycle over
// GitHub; the lifecycle itself is in its packages, one per concept, each
// importing only those below it (internal/layers_test.go keeps it so):
//
//	resync       the resync: repositories walked again, calling the rest
//	dashboard    the "Package dashboard" issue: facts, body, find-or-create, debounce
//	variant      variants carried out: facts, clone, update, removal (planner: internal/variants)
//	updates      update pull requests: plan, branch, body, fan-out, pace, waiting, automerge, flows
//	rebase       drafts kept current: the other drafts rebased on a published revision
//	publish      publish on merge: verdict, signed tag, release, notes, adoption, the index
//	proposals    propose, reject, delete, new drafts (init, edit, rollback), clone, list, dependents
//	approval     what a proposal is, what it changes, the pure policy (deletion guard included) and its check
//	rendercheck  draft render, render attempts and states, the render and config checks
//	onboarding   the "Configure porchbot" pull request of a repository without its config file
//	core         sessions, config history, commits under a lease, landings, revision tags, check runs
//
// Every step is written against small consumer-side interfaces of the
// GitHub API in internal/hub's values and a git cache, with a
// core.Session opened for the event's repository; nothing here touches
// HTTP. The bot's event handlers (package bot) and commands (package
// bot/commands) call the steps.
//
// Every commit the bot makes carries Porch's `kpt:` trailer
// (packages.Trailer) and is pushed with a lease: a branch someone else
// moved is never overwritten.
//
// This package's own tests are the lifecycle's tests on the local forge
// that cross concepts (a publish after a proposal, a resync over both);
// each concept's unit tests are in its package.
package lifecycle
