package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestCommandMistakes: every mistake a commenter can make gets what went
// wrong and what to do, never "internal error": a package that does not
// exist (with the nearest names), a revision that does not exist (with the
// ones that do), a package with no published revision (and how one is
// published), a draft that does not exist, a draft with nothing to propose,
// a draft already merged; and /porch list does not offer to propose a
// merged draft.
func TestCommandMistakes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	issue := w.createIssue("alice", repo, "Mistakes")

	// basens is published as v1; network/upf is on main, unpublished.
	w.publishFound(repo, w.branchSHA(repo, "main"), "basens")
	// A draft with nothing to propose (at main's head), and one merged.
	dir := w.clone("alice", repo)
	w.git(dir, "push", "-q", "origin", "HEAD:refs/heads/drafts/basens/empty")
	w.git(dir, "switch", "-q", "-c", "drafts/basens/quota")
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "60"`, 1))
	w.git(dir, "commit", "-q", "-am", "Sixty pods")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	merged := w.openPull("alice", repo, "drafts/basens/quota", "Sixty pods")
	w.settle()
	w.approve("bob", repo, merged.GetNumber())
	w.settle()
	w.merge("alice", repo, merged.GetNumber())
	w.settle()
	// A new package that is only a draft.
	w.comment("alice", repo, issue, "/porch init network/smf")
	w.settle()

	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"/porch delete nope", []string{"❌", "There is no package `nope` on `main`", "`/porch list`"}},
		{"/porch delete basen", []string{"❌", "There is no package `basen` on `main`", "Did you mean `basens`?"}},
		{"/porch delete network/ufp", []string{"❌", "Did you mean `network/upf`?"}},
		{"/porch edit nope", []string{"❌", "There is no package `nope` on `main`", "`/porch list`"}},
		{"/porch edit network/upf", []string{"❌", "`network/upf` has no published revision yet", "`/porch publish`"}},
		{"/porch edit basens --from v9", []string{"❌", "`basens` has no revision `v9`", "published: `v1`"}},
		{"/porch rollback basens v4", []string{"❌", "`basens` has no revision `v4`", "published: `v1`"}},
		{"/porch edit network/smf", []string{"❌", "`network/smf` has no published revision yet: it is only a draft (`drafts/network/smf/v1`)", "`/porch propose network/smf/v1`"}},
		{"/porch clone acme/catalog/basenz@v1 edge/basens", []string{"❌", "`acme/catalog` has no published revision of `basenz`", "Did you mean `basens`?"}},
		{"/porch clone acme/catalog/basens@v7 edge/basens", []string{"❌", "`acme/catalog` has no revision `v7` of `basens` (published: `v1`, `v2`)"}},
		{"/porch propose nope/v1", []string{"❌", "There is no draft `drafts/nope/v1`", "`/porch init nope` starts a new one"}},
		{"/porch propose basens/quot", []string{"❌", "There is no draft `drafts/basens/quot`", "Did you mean `basens/quota`?"}},
		{"/porch propose basens/empty", []string{"❌", "Nothing to propose", "`drafts/basens/empty` has no commits that are not on `main`", "Push changes to it"}},
		{"/porch propose basens/quota", []string{"❌", "`drafts/basens/quota` is already merged", "#" + itoa(merged.GetNumber()), "`/porch edit basens`"}},
	} {
		c := w.comment("alice", repo, issue, tc.command)
		w.settle()
		body := w.replyTo(repo, issue, c).GetBody()
		if strings.Contains(body, "internal error") {
			t.Errorf("%s: an internal error for a mistake:\n%s", tc.command, body)
			continue
		}
		for _, s := range tc.want {
			if !strings.Contains(body, s) {
				t.Errorf("%s: the reply lacks %q:\n%s", tc.command, s, body)
			}
		}
	}

	c := w.comment("alice", repo, merged.GetNumber(), "/porch reject too late")
	w.settle()
	if body := w.replyTo(repo, merged.GetNumber(), c).GetBody(); !strings.Contains(body, "#"+itoa(merged.GetNumber())+" is already merged: there is nothing to reject") {
		t.Errorf("/porch reject of a merged proposal:\n%s", body)
	}

	c = w.comment("alice", repo, issue, "/porch list")
	w.settle()
	body := w.replyTo(repo, issue, c).GetBody()
	if strings.Contains(body, "/porch propose basens/quota") {
		t.Errorf("/porch list offers to propose a merged draft:\n%s", body)
	}
	if strings.Contains(body, "/porch propose basens/empty") || !strings.Contains(body, "nothing to propose yet") {
		t.Errorf("/porch list offers to propose a draft with no commits of its own:\n%s", body)
	}
	if !strings.Contains(body, "merged into `main`") {
		t.Errorf("/porch list does not say the draft was merged:\n%s", body)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestInternalErrorNamesTheDelivery: porchbot's own fault (GitHub failing
// every try of a call) is the one reply that says "internal error", and it
// names the webhook delivery, as the log line does.
func TestInternalErrorNamesTheDelivery(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	issue := w.createIssue("alice", repo, "Faults")
	w.settle()
	fg.SetFaults(forge.Faults{ServerErrors: 20, ServerErrorStatus: 502, PathPrefix: "/repos/acme/catalog/pulls"})
	c := w.comment("alice", repo, issue, "/porch list")
	w.settle()
	fg.SetFaults(forge.Faults{})
	var delivery string
	for _, d := range fg.Deliveries() {
		if d.Event == "issue_comment" && strings.Contains(string(d.Payload), `"id":`+strconv.FormatInt(c.GetID(), 10)+`,`) {
			delivery = d.ID
		}
	}
	if delivery == "" {
		t.Fatal("no delivery of the comment")
	}
	body := w.replyTo(repo, issue, c).GetBody()
	if !strings.Contains(body, "internal error") || !strings.Contains(body, "delivery id `"+delivery+"`") {
		t.Fatalf("reply to a command that failed on porchbot's side (delivery %s):\n%s", delivery, body)
	}
}
