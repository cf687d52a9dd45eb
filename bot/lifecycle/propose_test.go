package lifecycle_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/hub"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/packages"
)

// propFixture is acme/catalog seeded with package basens (and a root
// README), plus helpers that act as the cast through the forge's REST API
// (so pushes move pull requests as on GitHub). Shared by the propose,
// approval and reject tests.
type propFixture struct {
	t   *testing.T
	h   *harness
	ctx context.Context
	// recordKey is the ProposalAPI.RecordKey of the sessions' APIs.
	recordKey []byte
}

const propKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: base namespace\n"

// newPropFixture seeds main with basens, README.md and, if cfg is not
// empty, .github/porchbot.yaml with cfg under the approvals key's parent.
func newPropFixture(t *testing.T, cfg string) *propFixture {
	t.Helper()
	h := newHarness(t)
	files := map[string][]byte{
		"README.md":      []byte("# catalog\n"),
		"basens/Kptfile": []byte(propKptfile),
		"basens/ns.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: base\n"),
	}
	if cfg != "" {
		files[".github/porchbot.yaml"] = []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n" + cfg)
	}
	h.Seed(t, files)
	return &propFixture{t: t, h: h, ctx: context.Background()}
}

// push commits files (path -> content, on top of the branch's tree) to
// branch as the token's user, creating the branch from main if needed,
// through the git data API; it returns the new commit.
func (f *propFixture) push(token, branch, msg string, files map[string]string) string {
	f.t.Helper()
	gh := f.h.User(token)
	parent := ""
	create := false
	ref, resp, err := gh.Git.GetRef(f.ctx, "acme", "catalog", "heads/"+branch)
	switch {
	case err == nil:
		parent = ref.GetObject().GetSHA()
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		main, _, err := gh.Git.GetRef(f.ctx, "acme", "catalog", "heads/main")
		if err != nil {
			f.t.Fatal(err)
		}
		parent, create = main.GetObject().GetSHA(), true
	default:
		f.t.Fatal(err)
	}
	pc, _, err := gh.Git.GetCommit(f.ctx, "acme", "catalog", parent)
	if err != nil {
		f.t.Fatal(err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var entries []*github.TreeEntry
	for _, p := range paths {
		entries = append(entries, &github.TreeEntry{Path: github.String(p), Mode: github.String("100644"),
			Type: github.String("blob"), Content: github.String(files[p])})
	}
	tree, _, err := gh.Git.CreateTree(f.ctx, "acme", "catalog", pc.GetTree().GetSHA(), entries)
	if err != nil {
		f.t.Fatal(err)
	}
	c, _, err := gh.Git.CreateCommit(f.ctx, "acme", "catalog", &github.Commit{Message: github.String(msg),
		Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: github.String(parent)}}}, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	nr := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: c.SHA}}
	if create {
		_, _, err = gh.Git.CreateRef(f.ctx, "acme", "catalog", nr)
	} else {
		_, _, err = gh.Git.UpdateRef(f.ctx, "acme", "catalog", nr, false)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return c.GetSHA()
}

// draft pushes a first commit on drafts/basens/w1 as alice (a package change).
func (f *propFixture) draft() string {
	return f.push(forgetest.AliceToken, "drafts/basens/w1", "Add a config map",
		map[string]string{"basens/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"1\"\n"})
}

// openPR opens the pull request of drafts/basens/w1 as the token's user.
func (f *propFixture) openPR(token string) *github.PullRequest {
	f.t.Helper()
	pr, _, err := f.h.User(token).PullRequests.Create(f.ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("basens: w1"), Head: github.String("drafts/basens/w1"), Base: github.String("main")})
	if err != nil {
		f.t.Fatal(err)
	}
	return pr
}

// pr reads pull request n as GitHub has it now, in porchbot's view.
func (f *propFixture) pr(n int) hub.Pull {
	f.t.Helper()
	pr, _, err := f.h.User(forgetest.AliceToken).PullRequests.Get(f.ctx, "acme", "catalog", n)
	if err != nil {
		f.t.Fatal(err)
	}
	return ghclient.PullOf(pr)
}

// review submits a review (APPROVE, REQUEST_CHANGES, COMMENT) on commit.
func (f *propFixture) review(token string, n int, commit, event string) {
	f.t.Helper()
	req := &github.PullRequestReviewRequest{CommitID: github.String(commit), Event: github.String(event)}
	if event != "APPROVE" {
		req.Body = github.String("please change")
	}
	if _, _, err := f.h.User(token).PullRequests.CreateReview(f.ctx, "acme", "catalog", n, req); err != nil {
		f.t.Fatal(err)
	}
}

// session opens a fresh session (fetching everything) and its API.
func (f *propFixture) session() (*core.Session, approval.ProposalAPI) {
	s := f.h.Open(f.t)
	api := approval.NewProposalAPI(s.Hub)
	api.RecordKey = f.recordKey
	return s, api
}

// calls runs fn and returns the REST calls it made, by endpoint.
func (f *propFixture) calls(fn func()) (int64, map[string]int64) {
	before := f.settledStats()
	fn()
	d := forge.Counted(forge.StatsDelta(before, f.settledStats()))
	return forge.SumCounted(d), d
}

// settledStats is the forge's call counts once they stop moving: the forge
// counts a call after its handler has written the response, so the client
// can be ahead of the count by a few microseconds.
func (f *propFixture) settledStats() map[string]int64 {
	prev := f.h.Env.Forge.Stats().Snapshot()
	for range 100 {
		time.Sleep(5 * time.Millisecond)
		cur := f.h.Env.Forge.Stats().Snapshot()
		if reflect.DeepEqual(prev, cur) {
			return cur
		}
		prev = cur
	}
	return prev
}

func propLabelNames(pr hub.Pull) []string { return pr.Labels }

func TestOpenProposalCreatesLabelledPRAndIsIdempotent(t *testing.T) {
	f := newPropFixture(t, "")
	head := f.draft()
	s, api := f.session()

	var pr hub.Pull
	n, d := f.calls(func() {
		var err error
		if pr, err = proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "alice"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("OpenProposal (new): %d REST calls %v", n, d)
	if pr.Head.Ref != "drafts/basens/w1" || pr.Base.Ref != "main" || pr.State != "open" {
		t.Fatalf("pull request %s -> %s (%s)", pr.Head.Ref, pr.Base.Ref, pr.State)
	}
	if pr.Title != "basens: Add a config map" {
		t.Fatalf("title %q", pr.Title)
	}
	body := pr.Body
	for _, want := range []string{"`basens`", "`w1`", "`drafts/basens/w1`", head[:7], "Add a config map", "@alice",
		"`basens/v1`", `<!-- porchbot:proposal {"package":"basens","workspace":"w1"} -->`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	got := f.pr(pr.Number)
	if labels := propLabelNames(got); len(labels) != 1 || labels[0] != packages.LabelProposed {
		t.Fatalf("labels %v", labels)
	}
	comments, _, err := f.h.User(forgetest.AliceToken).Issues.ListComments(f.ctx, "acme", "catalog", pr.Number, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := approval.ProposalRequester(api, "acme/catalog", got, hubComments(comments)); got.User.Login != approval.DefaultBotLogin || r != "alice" {
		t.Fatalf("author %s, requester %q", got.User.Login, r)
	}
	// The body is the author's to edit: it never names the requester.
	got.Body = `<!-- porchbot:proposal {"package":"basens","workspace":"w1","requester":"mallory"} -->`
	if r := approval.ProposalRequester(api, "acme/catalog", got, nil); r != "" {
		t.Fatalf("requester from the body: %q", r)
	}

	// Again: the same pull request, three calls (the refused creation, the
	// lookup, the look for its requester record), nothing created: the
	// record still names alice.
	var again hub.Pull
	n, d = f.calls(func() {
		var err error
		if again, err = proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "bob"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("OpenProposal (already open): %d REST calls %v", n, d)
	if again.Number != pr.Number || n != 3 {
		t.Fatalf("second propose: #%d (first #%d), %d calls %v", again.Number, pr.Number, n, d)
	}
	open, _, err := f.h.User(forgetest.AliceToken).PullRequests.List(f.ctx, "acme", "catalog", &github.PullRequestListOptions{State: "all"})
	if err != nil || len(open) != 1 {
		t.Fatalf("pull requests %d (%v)", len(open), err)
	}
	if r := f.requester(api, pr.Number); r != "alice" {
		t.Fatalf("requester after a second propose: %q", r)
	}
}

// TestOpenProposalRepairsAMissingRequesterRecord: a bot-opened proposal
// whose requester record is gone (its writing failed after the pull
// request was made, or someone deleted it) has no known requester, and no
// approval counts; proposing it again records who asked this time.
func TestOpenProposalRepairsAMissingRequesterRecord(t *testing.T) {
	f := newPropFixture(t, "")
	f.draft()
	s, api := f.session()
	pr, err := proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "alice")
	if err != nil {
		t.Fatal(err)
	}
	alice := f.h.User(forgetest.AliceToken)
	comments, _, err := alice.Issues.ListComments(f.ctx, "acme", "catalog", pr.Number, nil)
	if err != nil || len(comments) != 1 {
		t.Fatalf("comments %d (%v)", len(comments), err)
	}
	if _, err := alice.Issues.DeleteComment(f.ctx, "acme", "catalog", comments[0].GetID()); err != nil {
		t.Fatal(err)
	}
	if r := f.requester(api, pr.Number); r != "" {
		t.Fatalf("requester with the record deleted: %q", r)
	}
	if _, err := proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "bob"); err != nil {
		t.Fatal(err)
	}
	if r := f.requester(api, pr.Number); r != "bob" {
		t.Fatalf("requester after proposing again: %q, want bob", r)
	}
}

// requester is the requester of pull request n as the verdict reads it.
func (f *propFixture) requester(api approval.ProposalAPI, n int) string {
	f.t.Helper()
	pr := f.pr(n)
	comments, _, err := f.h.User(forgetest.AliceToken).Issues.ListComments(f.ctx, "acme", "catalog", n, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return approval.ProposalRequester(api, "acme/catalog", pr, hubComments(comments))
}

func TestOpenProposalErrors(t *testing.T) {
	f := newPropFixture(t, "")
	// A draft branch with no commit of its own.
	main, _, err := f.h.User(forgetest.AliceToken).Git.GetRef(f.ctx, "acme", "catalog", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.h.User(forgetest.AliceToken).Git.CreateRef(f.ctx, "acme", "catalog", &github.Reference{
		Ref: github.String("refs/heads/drafts/basens/empty"), Object: main.Object}); err != nil {
		t.Fatal(err)
	}
	s, api := f.session()
	if _, err := proposals.OpenProposal(f.ctx, s, api, "basens", "nope", "alice"); !errors.Is(err, approval.ErrNoDraftBranch) {
		t.Fatalf("missing branch: %v", err)
	}
	if _, err := proposals.OpenProposal(f.ctx, s, api, "basens", "empty", "alice"); !errors.Is(err, approval.ErrNothingToPropose) {
		t.Fatalf("empty draft: %v", err)
	}
	if _, err := proposals.OpenProposal(f.ctx, s, api, "../x", "w1", "alice"); err == nil {
		t.Fatal("an invalid package name must be refused")
	}
}

func TestOnProposalEventLabelsThenEvaluates(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [bob]\n")
	f.draft()
	pr := f.openPR(forgetest.AliceToken)
	s, api := f.session()

	var out *approval.Outcome
	n, d := f.calls(func() {
		var err error
		if out, err = proposals.OnProposalEvent(f.ctx, s, api, ghclient.PullOf(pr)); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("OnProposalEvent (unlabelled): %d REST calls %v", n, d)
	if out == nil || !out.Labelled || out.Result.Satisfied || n != 4 { // label, reviews, render checks, check run (no comment)
		t.Fatalf("outcome %+v, %d calls %v", out, n, d)
	}
	if out.CheckRun.Conclusion != "action_required" || out.CheckRun.Name != approval.CheckName {
		t.Fatalf("check %s %s", out.CheckRun.Name, out.CheckRun.Conclusion)
	}
	if labels := propLabelNames(f.pr(pr.GetNumber())); len(labels) != 1 || labels[0] != packages.LabelProposed {
		t.Fatalf("labels %v", labels)
	}
	// The event's pull request now carries the label: no label call.
	n, d = f.calls(func() {
		var err error
		if out, err = proposals.OnProposalEvent(f.ctx, s, api, f.pr(pr.GetNumber())); err != nil {
			t.Fatal(err)
		}
	})
	n-- // the f.pr read above
	t.Logf("OnProposalEvent (labelled): %d REST calls %v", n, d)
	if out.Labelled || n != 1 { // the check run: reviews and render checks are revalidated (304s, not charged)
		t.Fatalf("labelled again: %v, %d calls %v", out.Labelled, n, d)
	}

	// Not a proposal: a feature branch, or a GitHub draft pull request.
	f.push(forgetest.AliceToken, "feature", "docs", map[string]string{"README.md": "x\n"})
	feat, _, err := f.h.User(forgetest.AliceToken).PullRequests.Create(f.ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("docs"), Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n, _ = f.calls(func() {
		if out, err := proposals.OnProposalEvent(f.ctx, s, api, ghclient.PullOf(feat)); out != nil || err != nil {
			t.Fatalf("feature branch: %+v %v", out, err)
		}
		ghDraft := ghclient.PullOf(pr)
		ghDraft.Draft = true
		if out, err := proposals.OnProposalEvent(f.ctx, s, api, ghDraft); out != nil || err != nil {
			t.Fatalf("GitHub draft: %+v %v", out, err)
		}
	})
	if n != 0 {
		t.Fatalf("non-proposals made %d calls", n)
	}
}

func TestRejectClosesUnlabelsAndKeepsTheBranch(t *testing.T) {
	f := newPropFixture(t, "")
	f.draft()
	s, api := f.session()
	pr, err := proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "alice")
	if err != nil {
		t.Fatal(err)
	}
	n, d := f.calls(func() {
		if err := proposals.Reject(f.ctx, s, api, pr, "bob", "not now"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("Reject: %d REST calls %v", n, d)
	if n != 3 {
		t.Fatalf("%d calls %v", n, d)
	}
	got := f.pr(pr.Number)
	if got.State != "closed" || got.Merged || len(got.Labels) != 0 {
		t.Fatalf("state %s merged %v labels %v", got.State, got.Merged, propLabelNames(got))
	}
	comments, _, err := f.h.User(forgetest.AliceToken).Issues.ListComments(f.ctx, "acme", "catalog", pr.Number, nil)
	// The requester record, then the rejection.
	if err != nil || len(comments) != 2 || !strings.Contains(comments[1].GetBody(), "rejected by @bob") ||
		!strings.Contains(comments[1].GetBody(), "> not now") {
		t.Fatalf("comments %v %v", comments, err)
	}
	if _, _, err := f.h.User(forgetest.AliceToken).Git.GetRef(f.ctx, "acme", "catalog", "heads/drafts/basens/w1"); err != nil {
		t.Fatalf("the draft branch must stay: %v", err)
	}
	// Redelivered: nothing more.
	n, _ = f.calls(func() {
		if err := proposals.Reject(f.ctx, s, api, got, "bob", "not now"); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("rejecting a closed proposal made %d calls", n)
	}
	// Proposing again opens a new pull request from the same branch.
	again, err := proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "alice")
	if err != nil || again.Number == pr.Number {
		t.Fatalf("propose again: #%d %v", again.Number, err)
	}
	// Not a proposal.
	notProp := hub.Pull{Number: 99, State: "open", Head: hub.Branch{Ref: "feature"}, Base: hub.Branch{Ref: "main"}}
	if err := proposals.Reject(f.ctx, s, api, notProp, "bob", ""); !errors.Is(err, approval.ErrNotProposal) {
		t.Fatalf("want ErrNotProposal, got %v", err)
	}
}
