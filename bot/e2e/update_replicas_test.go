package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUpdateReplicasOpenOnce: three replicas receive every webhook, each in
// its own order, all at once. A publish upstream makes one update branch
// commit, one pull request, one requester record and one set of labels per
// downstream package; the next revision refreshes each once; bob's push to
// one update branch gets one comment, not three.
func TestUpdateReplicasOpenOnce(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)
	fl := newFleet(t, w, 2)
	for _, r := range downstreamRepos {
		w.indexDownstreams(r, fl.replicas[1:]...)
	}

	v2 := w.publishUpstreamSettled("v2", upstreamV2(w), fl.settle)
	v2sha := w.tags(upstreamRepo, upstreamPkg+"/v")[v2]
	prs := map[string]int{}
	for _, r := range downstreamRepos {
		pr := w.checkUpdate(r, v2, v2sha)
		prs[r] = pr.GetNumber()
		if got := len(w.updatePulls(r)); got != 1 {
			t.Fatalf("%s: %d update pull requests", r, got)
		}
		if n := w.updatePushes(r); n != 1 {
			t.Errorf("%s: %d pushes to %s for one revision", r, n, updateBranch)
		}
		seen := map[string]bool{}
		for _, c := range w.botComments(r, pr.GetNumber()) {
			if seen[c.GetBody()] {
				t.Errorf("%s#%d: porchbot said the same thing twice:\n%s", r, pr.GetNumber(), c.GetBody())
			}
			seen[c.GetBody()] = true
		}
		if len(seen) != 0 {
			t.Errorf("%s#%d: %d bot comments, want none (the requester record is in the body)", r, pr.GetNumber(), len(seen))
		}
		if n := strings.Count(pr.GetBody(), "<!-- porchbot:requester-at "); n != 1 {
			t.Errorf("%s#%d: %d requester records in the body, want one:\n%s", r, pr.GetNumber(), n, pr.GetBody())
		}
	}

	dir := w.clone("bob", "acme/edge-2")
	w.git(dir, "switch", "-q", updateBranch)
	w.replaceIn(dir, "upf/deployment.yaml", "replicas: 2", "replicas: 4")
	w.git(dir, "commit", "-q", "-am", "Four replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	fl.settle()

	v3 := w.publishUpstreamSettled("v3", upstreamV3(w), fl.settle)
	v3sha := w.tags(upstreamRepo, upstreamPkg+"/v")[v3]
	for _, r := range []string{"acme/edge-1", "acme/edge-3"} {
		if pr := w.checkUpdate(r, v3, v3sha); pr.GetNumber() != prs[r] {
			t.Fatalf("%s: v3 opened #%d, not a refresh of #%d", r, pr.GetNumber(), prs[r])
		}
		if n := w.updatePushes(r); n != 2 {
			t.Errorf("%s: %d pushes to %s for two revisions", r, n, updateBranch)
		}
	}
	if cs := w.botCommentsWith("acme/edge-2", prs["acme/edge-2"], "porchbot:update-held "+v3); len(cs) != 1 {
		t.Fatalf("edge-2: %d held comments for %s from three replicas", len(cs), v3)
	}
}

// updatePushes counts the push webhooks of the update branch of repo: one
// per commit porchbot made there (bob's pushes aside).
func (w *world) updatePushes(repo string) int {
	w.t.Helper()
	n := 0
	for _, d := range w.svc.Embedded.Forge.Deliveries() {
		if d.Event != "push" {
			continue
		}
		var ev struct {
			Ref  string `json:"ref"`
			Repo struct {
				FullName string `json:"full_name"`
			} `json:"repository"`
			Sender struct {
				Login string `json:"login"`
			} `json:"sender"`
		}
		if err := json.Unmarshal(d.Payload, &ev); err != nil {
			w.t.Fatal(err)
		}
		if ev.Repo.FullName == repo && ev.Ref == "refs/heads/"+updateBranch && strings.HasSuffix(ev.Sender.Login, "[bot]") {
			n++
		}
	}
	return n
}
