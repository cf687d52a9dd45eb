package lifecycle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/hub"
)

// TestRequesterRecordInTheBody: a requester record in a bot-opened pull
// request's body counts only with a valid signature over this head branch
// and a commit of the pull request's own. Copied from a pull request that
// was merged (its commit is in the merge base now), moved to another
// branch, or edited to name someone else, it names nobody — the requester
// is then unknown, which blocks approval rather than lifting the
// self-approval rule.
func TestRequesterRecordInTheBody(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	key := []byte("record key")
	alice := h.User(forgetest.AliceToken)
	aliceAcct, _ := h.Env.Forge.Account("alice")
	m0 := h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	ref := func(name, sha string) {
		t.Helper()
		_, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/" + name), Object: &github.GitObject{SHA: github.String(sha)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	commit := func(branch, content string) string {
		t.Helper()
		sha, err := h.Env.Forge.CommitFiles("acme/catalog", branch, map[string][]byte{"README.md": []byte(content)}, "change", aliceAcct)
		if err != nil {
			t.Fatal(err)
		}
		return sha
	}
	const branch = "porch/update/upf"
	// Pull request A (porchbot's, requested by nobody but porchbot) is
	// merged by fast-forward; pull request B is /porch upgrade's, asked
	// for by mallory, on the same branch name.
	ref(branch, m0)
	cA := commit(branch, "a\n")
	if _, _, err := alice.Git.UpdateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: github.String(cA)}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Git.DeleteRef(ctx, "acme", "catalog", "heads/"+branch); err != nil {
		t.Fatal(err)
	}
	ref(branch, cA)
	cB := commit(branch, "b\n")

	s := h.Open(t)
	api := approval.ProposalAPI{RecordKey: key}
	bot := hub.User{Login: approval.DefaultBotLogin, Type: "Bot"}
	prB := func(body string) hub.Pull {
		return hub.Pull{Number: 2, User: bot, Body: "Update upf\n\n" + body + "\n",
			Head: hub.Branch{Ref: branch, SHA: cB}}
	}
	own := approval.OwnCommitsOf(ctx, s, cB, plumbing.NewHash(cA))
	requester := func(body string) string {
		return approval.ProposalRequesterIn(api, "acme/catalog", prB(body), nil, own)
	}

	if got := requester(approval.RequesterAtRecord(key, "acme/catalog", branch, cB, "mallory")); got != "mallory" {
		t.Fatalf("the pull request's own record: requester %q, want mallory", got)
	}
	for name, body := range map[string]string{
		"copied from the merged pull request": approval.RequesterAtRecord(key, "acme/catalog", branch, cA, approval.DefaultBotLogin),
		"signed for another branch":           approval.RequesterAtRecord(key, "acme/catalog", "porch/update/other", cB, approval.DefaultBotLogin),
		"signed for another repository":       approval.RequesterAtRecord(key, "acme/other", branch, cB, approval.DefaultBotLogin),
		"a commit not in the repository":      approval.RequesterAtRecord(key, "acme/catalog", branch, strings.Repeat("a", 40), approval.DefaultBotLogin),
		"signed with another key":             approval.RequesterAtRecord([]byte("guess"), "acme/catalog", branch, cB, approval.DefaultBotLogin),
		"user edited": strings.Replace(approval.RequesterAtRecord(key, "acme/catalog", branch, cB, "mallory"),
			`"user":"mallory"`, `"user":"`+approval.DefaultBotLogin+`"`, 1),
		"deleted": "",
	} {
		if got := requester(body); got != "" {
			t.Errorf("%s: requester %q, want none", name, got)
		}
	}
	// Without the git check (ProposalRequester), a body is never read.
	if got := approval.ProposalRequester(api, "acme/catalog", prB(approval.RequesterAtRecord(key, "acme/catalog", branch, cB, "mallory")), nil); got != "" {
		t.Fatalf("ProposalRequester read the body: %q", got)
	}
}
