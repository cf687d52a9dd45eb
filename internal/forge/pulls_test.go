package forge_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

func TestPullsLifecycle(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	head1 := fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 1\nb: 20\nc: 3\n", "pkg/new.yaml", "x: 1\n"), "Change b, add new", "bob")

	// Create.
	pr := fx.openPull(t, fx.bob, "acme:feature", "Change b")
	if pr.GetNumber() != 1 || pr.GetState() != "open" || pr.GetUser().GetLogin() != "bob" ||
		pr.GetHead().GetRef() != "feature" || pr.GetHead().GetSHA() != head1 || pr.GetHead().GetLabel() != "acme:feature" ||
		pr.GetBase().GetRef() != "main" || pr.GetBase().GetSHA() != fx.mainSHA || pr.GetBase().GetRepo().GetFullName() != "acme/catalog" {
		t.Fatalf("created pull: %+v", pr)
	}
	if !pr.GetMergeable() || pr.GetMergeableState() != "clean" || pr.GetMerged() || pr.GetCommits() != 1 ||
		pr.GetAdditions() != 2 || pr.GetDeletions() != 1 || pr.GetChangedFiles() != 2 || pr.GetDraft() {
		t.Fatalf("created pull counts: mergeable=%v state=%s commits=%d +%d -%d files=%d",
			pr.GetMergeable(), pr.GetMergeableState(), pr.GetCommits(), pr.GetAdditions(), pr.GetDeletions(), pr.GetChangedFiles())
	}
	if pr.GetAuthorAssociation() != "MEMBER" || !strings.HasSuffix(pr.GetHTMLURL(), "/acme/catalog/pull/1") ||
		!strings.HasSuffix(pr.GetDiffURL(), "/pull/1.diff") || pr.GetLinks().GetSelf().GetHRef() != pr.GetURL() {
		t.Fatalf("created pull links: %s %s %s", pr.GetAuthorAssociation(), pr.GetHTMLURL(), pr.GetDiffURL())
	}

	// Refusals at creation.
	_, resp, err := fx.bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("again"), Head: github.String("feature"), Base: github.String("main")})
	if er := pullsWantStatus(t, "duplicate pull", resp, err, 422); er == nil || len(er.Errors) != 1 ||
		!strings.Contains(er.Errors[0].Message, "A pull request already exists for acme:feature") {
		t.Fatalf("duplicate pull: %v", err)
	}
	fx.branch(t, "same", "main", "bob")
	_, resp, err = fx.bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("nothing"), Head: github.String("same"), Base: github.String("main")})
	if er := pullsWantStatus(t, "no commits", resp, err, 422); er == nil || !strings.Contains(er.Errors[0].Message, "No commits between main and same") {
		t.Fatalf("no commits: %v", err)
	}
	_, resp, err = fx.bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("ghost"), Head: github.String("no-such-branch"), Base: github.String("main")})
	if er := pullsWantStatus(t, "missing head", resp, err, 422); er == nil || er.Errors[0].Field != "head" || er.Errors[0].Code != "invalid" {
		t.Fatalf("missing head: %v", err)
	}
	_, resp, err = fx.bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("ghost"), Head: github.String("feature"), Base: github.String("no-such-base")})
	if er := pullsWantStatus(t, "missing base", resp, err, 422); er == nil || er.Errors[0].Field != "base" {
		t.Fatalf("missing base: %v", err)
	}
	_, resp, err = fx.mallory.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("x"), Head: github.String("feature"), Base: github.String("main")})
	pullsWantStatus(t, "mallory creates", resp, err, 404)

	// A second pull request, to filter lists.
	fx.branch(t, "other", "main", "alice")
	fx.commit(t, "other", pullsWithFiles(pullsBaseFiles, "README.md", "hello, world\n"), "Readme", "alice")
	pr2 := fx.openPull(t, fx.alice, "other", "Readme")

	// Get and visibility.
	got, _, err := fx.carol.PullRequests.Get(ctx, "acme", "catalog", 1)
	if err != nil || got.GetTitle() != "Change b" || got.GetBody() != "Body of Change b" {
		t.Fatalf("carol gets pull: %v %+v", err, got)
	}
	_, resp, err = fx.mallory.PullRequests.Get(ctx, "acme", "catalog", 1)
	pullsWantStatus(t, "mallory gets", resp, err, 404)
	_, resp, err = fx.alice.PullRequests.Get(ctx, "acme", "catalog", 99)
	pullsWantStatus(t, "no such pull", resp, err, 404)

	// List filters.
	list := func(opts *github.PullRequestListOptions) []int {
		t.Helper()
		prs, _, err := fx.carol.PullRequests.List(ctx, "acme", "catalog", opts)
		if err != nil {
			t.Fatal(err)
		}
		var ns []int
		for _, p := range prs {
			ns = append(ns, p.GetNumber())
		}
		return ns
	}
	if ns := list(nil); len(ns) != 2 || ns[0] != pr2.GetNumber() {
		t.Fatalf("open pulls (newest first) = %v", ns)
	}
	if ns := list(&github.PullRequestListOptions{Head: "acme:feature"}); len(ns) != 1 || ns[0] != 1 {
		t.Fatalf("head filter = %v", ns)
	}
	if ns := list(&github.PullRequestListOptions{Head: "someone:feature"}); len(ns) != 0 {
		t.Fatalf("head filter of another owner = %v", ns)
	}
	if ns := list(&github.PullRequestListOptions{Base: "main", Direction: "asc"}); len(ns) != 2 || ns[0] != 1 {
		t.Fatalf("base filter asc = %v", ns)
	}
	if ns := list(&github.PullRequestListOptions{State: "closed"}); len(ns) != 0 {
		t.Fatalf("closed = %v", ns)
	}

	// Files and commits.
	files, _, err := fx.carol.PullRequests.ListFiles(ctx, "acme", "catalog", 1, nil)
	if err != nil || len(files) != 2 {
		t.Fatalf("files: %v %d", err, len(files))
	}
	byName := map[string]*github.CommitFile{}
	for _, f := range files {
		byName[f.GetFilename()] = f
	}
	if a := byName["pkg/a.yaml"]; a.GetStatus() != "modified" || a.GetAdditions() != 1 || a.GetDeletions() != 1 ||
		!strings.Contains(a.GetPatch(), "-b: 2\n+b: 20") || !strings.HasPrefix(a.GetPatch(), "@@") {
		t.Fatalf("file a: %+v patch %q", a, a.GetPatch())
	}
	if n := byName["pkg/new.yaml"]; n.GetStatus() != "added" || n.GetAdditions() != 1 {
		t.Fatalf("file new: %+v", n)
	}
	commits, _, err := fx.carol.PullRequests.ListCommits(ctx, "acme", "catalog", 1, nil)
	if err != nil || len(commits) != 1 || commits[0].GetSHA() != head1 || commits[0].GetCommit().GetMessage() != "Change b, add new" ||
		commits[0].GetAuthor().GetLogin() != "bob" || len(commits[0].Parents) != 1 || commits[0].Parents[0].GetSHA() != fx.mainSHA {
		t.Fatalf("commits: %v %+v", err, commits)
	}
	diff, _, err := fx.carol.PullRequests.GetRaw(ctx, "acme", "catalog", 1, github.RawOptions{Type: github.Diff})
	if err != nil || !strings.Contains(diff, "diff --git a/pkg/a.yaml b/pkg/a.yaml") {
		t.Fatalf("diff: %v %q", err, diff)
	}

	// Reviews: the author may not approve; others may.
	_, resp, err = fx.bob.PullRequests.CreateReview(ctx, "acme", "catalog", 1, &github.PullRequestReviewRequest{Event: github.String("APPROVE")})
	if er := pullsWantStatus(t, "self approval", resp, err, 422); er == nil || len(er.Errors) != 1 || er.Errors[0].Message != "Can not approve your own pull request" {
		t.Fatalf("self approval: %v", err)
	}
	rv, _, err := fx.alice.PullRequests.CreateReview(ctx, "acme", "catalog", 1, &github.PullRequestReviewRequest{
		Event: github.String("APPROVE"), Body: github.String("LGTM")})
	if err != nil || rv.GetState() != "APPROVED" || rv.GetCommitID() != head1 || rv.GetUser().GetLogin() != "alice" || rv.SubmittedAt == nil {
		t.Fatalf("approve: %v %+v", err, rv)
	}
	// carol (read) reviews too, first pending, then submitted.
	pending, _, err := fx.carol.PullRequests.CreateReview(ctx, "acme", "catalog", 1, &github.PullRequestReviewRequest{Body: github.String("hmm")})
	if err != nil || pending.GetState() != "PENDING" {
		t.Fatalf("pending review: %v %+v", err, pending)
	}
	reviews, _, err := fx.alice.PullRequests.ListReviews(ctx, "acme", "catalog", 1, nil)
	if err != nil || len(reviews) != 1 {
		t.Fatalf("alice must not see carol's pending review: %v %d", err, len(reviews))
	}
	sub, _, err := fx.carol.PullRequests.SubmitReview(ctx, "acme", "catalog", 1, pending.GetID(), &github.PullRequestReviewRequest{Event: github.String("COMMENT")})
	if err != nil || sub.GetState() != "COMMENTED" || sub.GetBody() != "hmm" {
		t.Fatalf("submit: %v %+v", err, sub)
	}
	reviews, _, err = fx.alice.PullRequests.ListReviews(ctx, "acme", "catalog", 1, nil)
	if err != nil || len(reviews) != 2 || reviews[0].GetState() != "APPROVED" || reviews[1].GetState() != "COMMENTED" {
		t.Fatalf("reviews: %v %+v", err, reviews)
	}
	one, _, err := fx.carol.PullRequests.GetReview(ctx, "acme", "catalog", 1, rv.GetID())
	if err != nil || one.GetID() != rv.GetID() {
		t.Fatalf("get review: %v", err)
	}

	// A push to the head synchronises.
	head2 := fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "pkg/a.yaml", "a: 1\nb: 20\nc: 30\n", "pkg/new.yaml", "x: 1\n"), "Change c", "bob")
	got, _, _ = fx.alice.PullRequests.Get(ctx, "acme", "catalog", 1)
	if got.GetHead().GetSHA() != head2 || got.GetCommits() != 2 {
		t.Fatalf("after push: head %s commits %d", got.GetHead().GetSHA(), got.GetCommits())
	}

	// Conversation comment by a reader, label by a writer.
	cm, _, err := fx.carol.Issues.CreateComment(ctx, "acme", "catalog", 1, &github.IssueComment{Body: github.String("/porch help")})
	if err != nil || cm.GetUser().GetLogin() != "carol" || !strings.Contains(cm.GetHTMLURL(), "/pull/1#issuecomment-") {
		t.Fatalf("comment: %v %+v", err, cm)
	}
	_, resp, err = fx.carol.Issues.AddLabelsToIssue(ctx, "acme", "catalog", 1, []string{"nope"})
	pullsWantStatus(t, "carol labels", resp, err, 403)
	labels, _, err := fx.bob.Issues.AddLabelsToIssue(ctx, "acme", "catalog", 1, []string{"porch/proposal"})
	if err != nil || len(labels) != 1 || labels[0].GetName() != "porch/proposal" || labels[0].GetColor() != "ededed" {
		t.Fatalf("labels: %v %+v", err, labels)
	}

	// Merge refusals.
	_, resp, err = fx.carol.PullRequests.Merge(ctx, "acme", "catalog", 1, "", nil)
	pullsWantStatus(t, "carol merges", resp, err, 403)
	_, resp, err = fx.mallory.PullRequests.Merge(ctx, "acme", "catalog", 1, "", nil)
	pullsWantStatus(t, "mallory merges", resp, err, 404)
	_, resp, err = fx.alice.PullRequests.Merge(ctx, "acme", "catalog", 1, "", &github.PullRequestOptions{SHA: head1})
	if er := pullsWantStatus(t, "stale sha", resp, err, 409); er == nil || !strings.Contains(er.Message, "Head branch was modified") {
		t.Fatalf("stale sha: %v", err)
	}
	if merged, _, _ := fx.alice.PullRequests.IsMerged(ctx, "acme", "catalog", 1); merged {
		t.Fatal("merged before merge")
	}

	// Merge.
	res, _, err := fx.alice.PullRequests.Merge(ctx, "acme", "catalog", 1, "", &github.PullRequestOptions{SHA: head2, MergeMethod: "merge"})
	if err != nil || !res.GetMerged() || len(res.GetSHA()) != 40 {
		t.Fatalf("merge: %v %+v", err, res)
	}
	if parents := strings.Fields(fx.git(t, "rev-list", "--parents", "-n", "1", "main")); len(parents) != 3 ||
		parents[0] != res.GetSHA() || parents[1] != fx.mainSHA || parents[2] != head2 {
		t.Fatalf("merge commit parents: %v", parents)
	}
	if msg := fx.git(t, "log", "-1", "--format=%s%n%n%b%n%an", "main"); !strings.HasPrefix(msg, "Merge pull request #1 from acme/feature\n\nChange b") ||
		!strings.HasSuffix(msg, "alice") {
		t.Fatalf("merge message: %q", msg)
	}
	if c := fx.git(t, "show", "main:pkg/a.yaml"); c != "a: 1\nb: 20\nc: 30" {
		t.Fatalf("merged content: %q", c)
	}
	got, _, _ = fx.carol.PullRequests.Get(ctx, "acme", "catalog", 1)
	if !got.GetMerged() || got.GetState() != "closed" || got.GetMergeCommitSHA() != res.GetSHA() || got.GetMergedBy().GetLogin() != "alice" ||
		got.MergedAt == nil || got.ClosedAt == nil || got.GetCommits() != 2 || got.GetChangedFiles() != 2 {
		t.Fatalf("merged pull: merged=%v state=%s sha=%s by=%s commits=%d files=%d", got.GetMerged(), got.GetState(),
			got.GetMergeCommitSHA(), got.GetMergedBy().GetLogin(), got.GetCommits(), got.GetChangedFiles())
	}
	if merged, _, err := fx.alice.PullRequests.IsMerged(ctx, "acme", "catalog", 1); err != nil || !merged {
		t.Fatalf("IsMerged: %v %v", merged, err)
	}
	_, resp, err = fx.alice.PullRequests.Merge(ctx, "acme", "catalog", 1, "", nil)
	pullsWantStatus(t, "merge twice", resp, err, 405)
	prs, _, _ := fx.carol.PullRequests.ListPullRequestsWithCommit(ctx, "acme", "catalog", res.GetSHA(), nil)
	if len(prs) != 1 || prs[0].GetNumber() != 1 {
		t.Fatalf("pulls of merge commit: %d", len(prs))
	}

	// Issues list the pull requests with their pull_request key.
	issues, _, err := fx.carol.Issues.ListByRepo(ctx, "acme", "catalog", &github.IssueListByRepoOptions{State: "all"})
	if err != nil || len(issues) != 2 || !issues[0].IsPullRequest() || issues[1].GetNumber() != 1 ||
		issues[1].GetPullRequestLinks().MergedAt == nil || issues[1].GetComments() != 1 || len(issues[1].Labels) != 1 {
		t.Fatalf("issues: %v %+v", err, issues)
	}

	// Webhooks, in order.
	fx.env.WaitDeliveries(t)
	var order []string
	for _, ev := range []string{"pull_request", "pull_request_review", "issue_comment"} {
		for _, h := range fx.hooks.of(ev, "") {
			order = append(order, ev+"."+h.Action)
		}
	}
	want := []string{"pull_request.opened", "pull_request.opened", "pull_request.synchronize", "pull_request.labeled",
		"pull_request.closed", "pull_request_review.submitted", "pull_request_review.submitted", "issue_comment.created"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("webhooks: %v\nwant %v", order, want)
	}
	var opened github.PullRequestEvent
	pullsJSON(t, fx.hooks.of("pull_request", "opened")[0].Body, &opened)
	if opened.GetNumber() != 1 || opened.GetPullRequest().GetHead().GetSHA() != head1 || opened.GetSender().GetLogin() != "bob" ||
		opened.GetRepo().GetFullName() != "acme/catalog" || opened.GetInstallation().GetID() != fx.env.Installation.ID ||
		opened.GetOrganization().GetLogin() != "acme" {
		t.Fatalf("opened payload: %+v", opened)
	}
	var sync github.PullRequestEvent
	pullsJSON(t, fx.hooks.of("pull_request", "synchronize")[0].Body, &sync)
	if sync.GetBefore() != head1 || sync.GetAfter() != head2 || sync.GetPullRequest().GetHead().GetSHA() != head2 || sync.GetSender().GetLogin() != "bob" {
		t.Fatalf("synchronize payload: before %s after %s", sync.GetBefore(), sync.GetAfter())
	}
	var labeled github.PullRequestEvent
	pullsJSON(t, fx.hooks.of("pull_request", "labeled")[0].Body, &labeled)
	if labeled.GetLabel().GetName() != "porch/proposal" || len(labeled.GetPullRequest().Labels) != 1 {
		t.Fatalf("labeled payload: %+v", labeled.GetLabel())
	}
	var closed github.PullRequestEvent
	pullsJSON(t, fx.hooks.of("pull_request", "closed")[0].Body, &closed)
	if !closed.GetPullRequest().GetMerged() || closed.GetPullRequest().GetMergeCommitSHA() != res.GetSHA() ||
		closed.GetPullRequest().GetMergedBy().GetLogin() != "alice" || closed.GetSender().GetLogin() != "alice" {
		t.Fatalf("closed payload: %+v", closed.GetPullRequest())
	}
	var review github.PullRequestReviewEvent
	pullsJSON(t, fx.hooks.of("pull_request_review", "submitted")[0].Body, &review)
	if review.GetReview().GetState() != "approved" || review.GetReview().GetUser().GetLogin() != "alice" ||
		review.GetPullRequest().GetNumber() != 1 || review.GetReview().GetCommitID() != head1 {
		t.Fatalf("review payload: %+v", review.GetReview())
	}
	var comment github.IssueCommentEvent
	pullsJSON(t, fx.hooks.of("issue_comment", "created")[0].Body, &comment)
	if comment.GetComment().GetBody() != "/porch help" || !comment.GetIssue().IsPullRequest() || comment.GetIssue().GetNumber() != 1 ||
		comment.GetSender().GetLogin() != "carol" || comment.GetInstallation().GetID() != fx.env.Installation.ID {
		t.Fatalf("comment payload: %+v", comment)
	}
}

func pullsJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

func TestPullsUpdateAndHeadDeletion(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "x.txt", "x\n"), "Add x", "bob")
	fx.openPull(t, fx.bob, "feature", "Add x")

	// carol (read) may not edit bob's pull request; bob may.
	_, resp, err := fx.carol.PullRequests.Edit(ctx, "acme", "catalog", 1, &github.PullRequest{Title: github.String("hijack")})
	pullsWantStatus(t, "carol edits", resp, err, 403)
	pr, _, err := fx.bob.PullRequests.Edit(ctx, "acme", "catalog", 1, &github.PullRequest{Title: github.String("Add x (v2)")})
	if err != nil || pr.GetTitle() != "Add x (v2)" {
		t.Fatalf("edit: %v %+v", err, pr)
	}
	// Close and reopen.
	pr, _, err = fx.bob.PullRequests.Edit(ctx, "acme", "catalog", 1, &github.PullRequest{State: github.String("closed")})
	if err != nil || pr.GetState() != "closed" || pr.ClosedAt == nil || pr.GetMerged() {
		t.Fatalf("close: %v %+v", err, pr)
	}
	pr, _, err = fx.bob.PullRequests.Edit(ctx, "acme", "catalog", 1, &github.PullRequest{State: github.String("open")})
	if err != nil || pr.GetState() != "open" || pr.ClosedAt != nil {
		t.Fatalf("reopen: %v %+v", err, pr)
	}
	// Deleting the head branch closes it, unmerged.
	fx.deleteBranch(t, "feature", "bob")
	pr, _, _ = fx.bob.PullRequests.Get(ctx, "acme", "catalog", 1)
	if pr.GetState() != "closed" || pr.GetMerged() {
		t.Fatalf("after head deletion: %s merged=%v", pr.GetState(), pr.GetMerged())
	}
	_, resp, err = fx.bob.PullRequests.Edit(ctx, "acme", "catalog", 1, &github.PullRequest{State: github.String("open")})
	pullsWantStatus(t, "reopen without head", resp, err, 422)

	fx.env.WaitDeliveries(t)
	var actions []string
	for _, h := range fx.hooks.of("pull_request", "") {
		actions = append(actions, h.Action)
	}
	if got := strings.Join(actions, " "); got != "opened edited closed reopened closed" {
		t.Fatalf("pull_request actions: %s", got)
	}
	var edited github.PullRequestEvent
	pullsJSON(t, fx.hooks.of("pull_request", "edited")[0].Body, &edited)
	if edited.GetChanges().GetTitle().GetFrom() != "Add x" {
		t.Fatalf("edited changes: %+v", edited.GetChanges())
	}
	var closed github.PullRequestEvent
	pullsJSON(t, fx.hooks.of("pull_request", "closed")[1].Body, &closed)
	if closed.GetPullRequest().GetMerged() || closed.GetPullRequest().GetState() != "closed" {
		t.Fatalf("closed by deletion: %+v", closed.GetPullRequest())
	}
}

func TestPullsMergedByPush(t *testing.T) {
	fx := newPullsFixture(t)
	fx.branch(t, "feature", "main", "bob")
	head := fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "x.txt", "x\n"), "Add x", "bob")
	fx.openPull(t, fx.bob, "feature", "Add x")
	// A fast-forward push of main to the head merges the pull request.
	if _, err := fx.env.Forge.PullsSetRef(fx.repo, "refs/heads/main", head); err != nil {
		t.Fatal(err)
	}
	fx.env.Forge.PullsRefsChanged(fx.repo, fx.account(t, "alice"), forge.RefChange{Ref: "refs/heads/main", Before: fx.mainSHA, After: head})
	pr, _, _ := fx.bob.PullRequests.Get(fx.ctx, "acme", "catalog", 1)
	if !pr.GetMerged() || pr.GetState() != "closed" || pr.GetMergedBy().GetLogin() != "alice" || pr.GetMergeCommitSHA() != head {
		t.Fatalf("merged by push: %+v", pr)
	}
}

func TestPullsRequestedReviewersAndETag(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "x.txt", "x\n"), "Add x", "bob")
	fx.openPull(t, fx.bob, "feature", "Add x")

	_, resp, err := fx.bob.PullRequests.RequestReviewers(ctx, "acme", "catalog", 1, github.ReviewersRequest{Reviewers: []string{"bob"}})
	pullsWantStatus(t, "author as reviewer", resp, err, 422)
	_, resp, err = fx.bob.PullRequests.RequestReviewers(ctx, "acme", "catalog", 1, github.ReviewersRequest{Reviewers: []string{"mallory"}})
	pullsWantStatus(t, "non-collaborator reviewer", resp, err, 422)
	pr, _, err := fx.bob.PullRequests.RequestReviewers(ctx, "acme", "catalog", 1, github.ReviewersRequest{Reviewers: []string{"alice", "carol"}})
	if err != nil || len(pr.RequestedReviewers) != 2 {
		t.Fatalf("request reviewers: %v %+v", err, pr)
	}
	// A review removes its author from the requested reviewers.
	if _, _, err := fx.alice.PullRequests.CreateReview(ctx, "acme", "catalog", 1, &github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	rs, _, err := fx.bob.PullRequests.ListReviewers(ctx, "acme", "catalog", 1, nil)
	if err != nil || len(rs.Users) != 1 || rs.Users[0].GetLogin() != "carol" {
		t.Fatalf("reviewers: %v %+v", err, rs)
	}

	// Conditional GET of a pull request.
	c := fx.alice
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/catalog/pulls/1", nil)
	resp, err = c.Do(ctx, req, &github.PullRequest{})
	if err != nil || resp.Header.Get("ETag") == "" {
		t.Fatalf("get: %v", err)
	}
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog/pulls/1", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, _ = c.Do(ctx, req, nil)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("want 304, got %d", resp.StatusCode)
	}
	fx.env.WaitDeliveries(t)
	if n := len(fx.hooks.of("pull_request", "review_requested")); n != 2 {
		t.Fatalf("review_requested webhooks: %d", n)
	}
}
