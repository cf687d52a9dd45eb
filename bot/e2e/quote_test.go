package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
)

// craftedTitle is a pull request title bob (write access to the catalog)
// writes to break out of what porchbot writes around it and to notify a
// whole team downstream.
const craftedTitle = "Bump </details> <!-- @acme/platform @alice see #1 and acme/edge-1#1 https://example.com/x"

// craftedNotes is what bob edits the v2 release's notes into: close
// porchbot's <details>, open a fence and an HTML comment that would hide
// the rest of the body (the conflicts table), and mention everyone.
const craftedNotes = "Fixed things.\n</details>\n\n# Approved by everyone\n\n| fake | table |\n|---|---|\n| x | y |\n\n" +
	"@acme/platform please merge, see #1\n\n```\n<!--\n"

// TestUpstreamTextIsQuotedInUpdatePullRequests: text bob controls upstream
// (the title of the pull request that lands a revision, then the release
// notes of that revision, which he may edit) reaches the update pull
// request porchbot opens downstream quoted: porchbot's sections and its
// conflicts table stay visible, and nobody is mentioned or referenced.
func TestUpstreamTextIsQuotedInUpdatePullRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.publishFound(upstreamRepo, w.firstCommit(upstreamRepo), upstreamPkg)
	w.seedReadme("acme/edge-1")
	w.cloneDownstream("acme/edge-1", 1)
	// edge-1 pins its own image: the update has a conflict to show.
	dir := w.clone("alice", "acme/edge-1")
	w.replaceIn(dir, "upf/deployment.yaml", "upf:1.4.2", "upf:1.4.3")
	w.git(dir, "commit", "-q", "-am", "Pin the UPF image at this site")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()

	// bob lands v2 with the crafted title (alice approves and merges).
	branch := w.pushUpstreamDraft("v2", upstreamV2(w))
	w.settle()
	pr := w.openPull("bob", upstreamRepo, branch, craftedTitle)
	w.settle()
	w.approve("alice", upstreamRepo, pr.GetNumber())
	w.settle()
	w.merge("alice", upstreamRepo, pr.GetNumber())
	w.settle()
	checkQuotedUpdateBody(t, w.openUpdateBody("acme/edge-1"), 1)

	// bob rewrites v2's release notes; v3 refreshes the body with them.
	owner, name := splitRepo(upstreamRepo)
	rel, _, err := w.client("bob").Repositories.GetReleaseByTag(w.ctx, owner, name, upstreamPkg+"/v2")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.client("bob").Repositories.EditRelease(w.ctx, owner, name, rel.GetID(),
		&github.RepositoryRelease{Body: github.String(craftedNotes)}); err != nil {
		t.Fatal(err)
	}
	w.publishUpstream("v3", upstreamV3(w))
	body := w.openUpdateBody("acme/edge-1")
	checkQuotedUpdateBody(t, body, 2)
	if !strings.Contains(body, "Fixed things.\n</details>\n") {
		t.Errorf("bob's notes are not shown as he wrote them:\n%s", body)
	}
}

// openUpdateBody is the body of repo's open update pull request.
func (w *world) openUpdateBody(repo string) string {
	w.t.Helper()
	for _, pr := range w.updatePulls(repo) {
		if pr.GetState() == "open" {
			return pr.GetBody()
		}
	}
	w.t.Fatalf("%s: no open update pull request", repo)
	return ""
}

// topBlock is one block at the top level of a document's structure; tag
// an HTML tag or comment in it.
var (
	topBlock = regexp.MustCompile(`(?m)^ (\S+)(.*)$`)
	tag      = regexp.MustCompile(`"<(/?[a-z]+|!-- porchbot:[a-z-]+)`)
)

// checkQuotedUpdateBody reads body as GitHub would: porchbot's marker
// first, one <details> block per revision's notes (opened and closed), its three
// sections and the conflicts table (which lists edge-1's pin) are there at
// the top level, no other HTML is, and nothing in it is live (a mention,
// a reference, a link GitHub made by itself).
func checkQuotedUpdateBody(t *testing.T, body string, notes int) {
	t.Helper()
	var tags, headings []string
	table := false
	for _, m := range topBlock.FindAllStringSubmatch(mdtest.Structure(body), -1) {
		switch m[1] {
		case "HTMLBlock":
			for _, tm := range tag.FindAllStringSubmatch(m[2], -1) {
				if !strings.HasPrefix(tm[1], "!-- porchbot:") || len(tags) == 0 {
					tags = append(tags, tm[1]) // porchbot's own records past its marker aside
				}
			}
		case "Heading":
			headings = append(headings, m[2])
			table = false
		case "Table":
			table = len(headings) == 3
		}
	}
	want := []string{"!-- porchbot:update"}
	for range notes {
		want = append(want, "details", "summary", "a", "code", "/code", "/a", "/summary", "/details")
	}
	if strings.Join(tags, " ") != strings.Join(want, " ") || strings.Join(headings, ",") != " 3, 3, 3" || !table {
		t.Errorf("the update body's structure is not porchbot's: HTML %q, headings %q, conflicts table %v:\n%s", tags, headings, table, body)
	}
	if !strings.Contains(body, "1.4.3") {
		t.Errorf("the conflicts table does not list edge-1's pin:\n%s", body)
	}
	if live := mdtest.Live(body); len(live) > 0 {
		t.Errorf("the update body mentions or references %q:\n%s", live, body)
	}
}
