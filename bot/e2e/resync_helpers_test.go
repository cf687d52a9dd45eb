package e2e

import (
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge"
)

// pushSixtyPods pushes a draft of basens (60 pods instead of 50) to
// acme/catalog on branch as alice, settles, and returns its head.
func (w *world) pushSixtyPods(branch string) string {
	w.t.Helper()
	dir := w.clone("alice", "acme/catalog")
	w.git(dir, "switch", "-q", "-c", branch)
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(w.t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "60"`, 1))
	w.git(dir, "commit", "-q", "-am", "Sixty pods")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	return w.git(dir, "rev-parse", "HEAD")
}

// pushDraftUnheard is pushSixtyPods while every webhook is lost: only a
// resync (or GitHub's redelivery) can tell porchbot of it.
func (w *world) pushDraftUnheard(branch string) string {
	w.t.Helper()
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	defer fg.SetFaults(forge.Faults{})
	return w.pushSixtyPods(branch)
}

// resyncPass runs one pass over every installed repository as the
// service's loop does, with deps, settles what it caused, and returns the
// forge's calls during the pass.
func (w *world) resyncPass(deps resync.Deps) map[string]int64 {
	w.t.Helper()
	fg := w.svc.Embedded.Forge
	before := fg.Stats().Snapshot()
	resync.Pass(w.ctx, w.svc.App.InstalledRepos(w.svc.Clients), w.svc.App.Open, deps)
	d := forge.StatsDelta(before, fg.Stats().Snapshot())
	w.settle()
	return d
}

// resyncDepsAlone are the service's resync deps without GitHub's
// redelivery, which would repair lost events as events
// (TestRedelivererRepairsLostWebhooks): the resync's own net.
func (w *world) resyncDepsAlone() resync.Deps {
	deps := w.svc.ResyncDeps()
	deps.BeforePass = nil
	return deps
}
