package forge_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

func TestIssuesCreateListEdit(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx

	// A reader's labels and assignees are dropped, as on GitHub.
	is1, _, err := fx.carol.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{
		Title: github.String("Broken"), Body: github.String("It broke"), Labels: &[]string{"bug"}, Assignees: &[]string{"alice"}})
	if err != nil || is1.GetNumber() != 1 || len(is1.Labels) != 0 || len(is1.Assignees) != 0 || is1.GetUser().GetLogin() != "carol" ||
		is1.IsPullRequest() || is1.GetAuthorAssociation() != "COLLABORATOR" {
		t.Fatalf("carol's issue: %v %+v", err, is1)
	}
	is2, _, err := fx.bob.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{
		Title: github.String("Feature"), Labels: &[]string{"enhancement", "porch/x"}, Assignees: &[]string{"alice"}})
	if err != nil || len(is2.Labels) != 2 || is2.GetAssignee().GetLogin() != "alice" || is2.GetAuthorAssociation() != "MEMBER" {
		t.Fatalf("bob's issue: %v %+v", err, is2)
	}
	_, resp, err := fx.bob.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("x"), Assignees: &[]string{"mallory"}})
	pullsWantStatus(t, "assign mallory", resp, err, 422)
	_, resp, err = fx.bob.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Body: github.String("no title")})
	pullsWantStatus(t, "no title", resp, err, 422)
	_, resp, err = fx.mallory.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("x")})
	pullsWantStatus(t, "mallory creates", resp, err, 404)

	list := func(opts *github.IssueListByRepoOptions) []int {
		t.Helper()
		is, _, err := fx.carol.Issues.ListByRepo(ctx, "acme", "catalog", opts)
		if err != nil {
			t.Fatal(err)
		}
		var ns []int
		for _, i := range is {
			ns = append(ns, i.GetNumber())
		}
		return ns
	}
	if ns := list(nil); fmt.Sprint(ns) != "[2 1]" {
		t.Fatalf("issues = %v", ns)
	}
	if ns := list(&github.IssueListByRepoOptions{Labels: []string{"porch/x", "enhancement"}}); fmt.Sprint(ns) != "[2]" {
		t.Fatalf("labels filter = %v", ns)
	}
	if ns := list(&github.IssueListByRepoOptions{Assignee: "none"}); fmt.Sprint(ns) != "[1]" {
		t.Fatalf("assignee none = %v", ns)
	}
	if ns := list(&github.IssueListByRepoOptions{Creator: "carol", Direction: "asc"}); fmt.Sprint(ns) != "[1]" {
		t.Fatalf("creator = %v", ns)
	}

	// Edit: the author and triagers, not other readers.
	_, resp, err = fx.carol.Issues.Edit(ctx, "acme", "catalog", 2, &github.IssueRequest{Title: github.String("mine")})
	pullsWantStatus(t, "carol edits bob's", resp, err, 403)
	ed, _, err := fx.carol.Issues.Edit(ctx, "acme", "catalog", 1, &github.IssueRequest{Title: github.String("Broken badly"), State: github.String("closed")})
	if err != nil || ed.GetTitle() != "Broken badly" || ed.GetState() != "closed" || ed.ClosedAt == nil {
		t.Fatalf("edit: %v %+v", err, ed)
	}
	ed, _, err = fx.bob.Issues.Edit(ctx, "acme", "catalog", 2, &github.IssueRequest{Labels: &[]string{"bug"}, Assignees: &[]string{}})
	if err != nil || len(ed.Labels) != 1 || ed.Labels[0].GetName() != "bug" || len(ed.Assignees) != 0 {
		t.Fatalf("edit labels: %v %+v", err, ed)
	}
	if ns := list(nil); fmt.Sprint(ns) != "[2]" {
		t.Fatalf("open after close = %v", ns)
	}
	got, _, err := fx.carol.Issues.Get(ctx, "acme", "catalog", 1)
	if err != nil || got.GetState() != "closed" {
		t.Fatalf("get: %v %+v", err, got)
	}
	_, resp, err = fx.mallory.Issues.Get(ctx, "acme", "catalog", 1)
	pullsWantStatus(t, "mallory gets", resp, err, 404)
	// Issues are not pull requests.
	_, resp, err = fx.carol.PullRequests.Get(ctx, "acme", "catalog", 1)
	pullsWantStatus(t, "issue as pull", resp, err, 404)
}

func TestIssuesCommentsPaginationAndWebhooks(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	if _, _, err := fx.bob.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Talk")}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := 0; i < 35; i++ {
		c, resp, err := fx.alice.Issues.CreateComment(ctx, "acme", "catalog", 1, &github.IssueComment{Body: github.String(fmt.Sprintf("comment %d", i))})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatal(err)
		}
		ids = append(ids, c.GetID())
	}
	_, resp, err := fx.bob.Issues.CreateComment(ctx, "acme", "catalog", 1, &github.IssueComment{Body: github.String("  ")})
	pullsWantStatus(t, "blank comment", resp, err, 422)
	_, resp, err = fx.mallory.Issues.CreateComment(ctx, "acme", "catalog", 1, &github.IssueComment{Body: github.String("hi")})
	pullsWantStatus(t, "mallory comments", resp, err, 404)
	_, resp, err = fx.alice.Issues.CreateComment(ctx, "acme", "catalog", 99, &github.IssueComment{Body: github.String("hi")})
	pullsWantStatus(t, "no such issue", resp, err, 404)

	// Pages of 10: Link headers, go-github follows them.
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 10}}
	var all []*github.IssueComment
	pages := 0
	for {
		cs, resp, err := fx.carol.Issues.ListComments(ctx, "acme", "catalog", 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if pages == 1 {
			link := resp.Header.Get("Link")
			if resp.LastPage != 4 || resp.NextPage != 2 || !strings.Contains(link, `rel="next"`) ||
				!strings.Contains(link, fx.env.Forge.BaseURL()+"/api/v3/repos/acme/catalog/issues/1/comments?") ||
				strings.Contains(link, "/api/v3/api/v3") {
				t.Fatalf("first page Link: %q (last %d next %d)", link, resp.LastPage, resp.NextPage)
			}
		}
		all = append(all, cs...)
		if resp.NextPage == 0 {
			if pages == 4 && resp.PrevPage != 3 {
				t.Fatalf("last page prev = %d", resp.PrevPage)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	if pages != 4 || len(all) != 35 || all[0].GetID() != ids[0] || all[34].GetID() != ids[34] {
		t.Fatalf("paged comments: %d pages, %d comments", pages, len(all))
	}
	// Default page size 30.
	cs, resp, _ := fx.carol.Issues.ListComments(ctx, "acme", "catalog", 1, nil)
	if len(cs) != 30 || resp.NextPage != 2 {
		t.Fatalf("default page: %d next %d", len(cs), resp.NextPage)
	}
	// since.
	future := time.Now().Add(time.Hour)
	cs, _, _ = fx.carol.Issues.ListComments(ctx, "acme", "catalog", 1, &github.IssueListCommentsOptions{Since: &future})
	if len(cs) != 0 {
		t.Fatalf("since future: %d", len(cs))
	}
	past := time.Now().Add(-time.Hour)
	cs, _, _ = fx.carol.Issues.ListComments(ctx, "acme", "catalog", 1, &github.IssueListCommentsOptions{Since: &past, ListOptions: github.ListOptions{PerPage: 100}})
	if len(cs) != 35 {
		t.Fatalf("since past: %d", len(cs))
	}
	// Repository-wide list (number 0).
	cs, _, err = fx.carol.Issues.ListComments(ctx, "acme", "catalog", 0, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil || len(cs) != 35 {
		t.Fatalf("repository comments: %v %d", err, len(cs))
	}

	// ETag and 304 on a list.
	c := fx.carol
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/catalog/issues/1/comments", nil)
	resp, err = c.Do(ctx, req, &[]*github.IssueComment{})
	if err != nil || resp.Header.Get("ETag") == "" {
		t.Fatalf("etag: %v", err)
	}
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog/issues/1/comments", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, _ = c.Do(ctx, req, nil)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("want 304, got %d", resp.StatusCode)
	}

	// Edit: the author and writers only.
	_, resp, err = fx.carol.Issues.EditComment(ctx, "acme", "catalog", ids[0], &github.IssueComment{Body: github.String("hijacked")})
	pullsWantStatus(t, "carol edits alice's comment", resp, err, 403)
	ed, _, err := fx.alice.Issues.EditComment(ctx, "acme", "catalog", ids[0], &github.IssueComment{Body: github.String("comment 0, edited")})
	if err != nil || ed.GetBody() != "comment 0, edited" {
		t.Fatalf("edit: %v %+v", err, ed)
	}
	if _, _, err := fx.bob.Issues.EditComment(ctx, "acme", "catalog", ids[1], &github.IssueComment{Body: github.String("moderated")}); err != nil {
		t.Fatalf("writer edits: %v", err)
	}
	one, _, err := fx.carol.Issues.GetComment(ctx, "acme", "catalog", ids[1])
	if err != nil || one.GetBody() != "moderated" || !strings.Contains(one.GetHTMLURL(), "/issues/1#issuecomment-") {
		t.Fatalf("get comment: %v %+v", err, one)
	}
	// Delete.
	_, err = fx.carol.Issues.DeleteComment(ctx, "acme", "catalog", ids[2])
	if err == nil {
		t.Fatal("carol deleted alice's comment")
	}
	if _, err := fx.alice.Issues.DeleteComment(ctx, "acme", "catalog", ids[2]); err != nil {
		t.Fatal(err)
	}
	_, resp, err = fx.carol.Issues.GetComment(ctx, "acme", "catalog", ids[2])
	pullsWantStatus(t, "deleted comment", resp, err, 404)
	is, _, _ := fx.carol.Issues.Get(ctx, "acme", "catalog", 1)
	if is.GetComments() != 34 {
		t.Fatalf("comment count %d", is.GetComments())
	}

	fx.env.WaitDeliveries(t)
	if n := len(fx.hooks.of("issue_comment", "created")); n != 35 {
		t.Fatalf("created webhooks: %d", n)
	}
	var edited github.IssueCommentEvent
	pullsJSON(t, fx.hooks.of("issue_comment", "edited")[0].Body, &edited)
	if edited.GetChanges().GetBody().GetFrom() != "comment 0" || edited.GetComment().GetBody() != "comment 0, edited" ||
		edited.GetIssue().IsPullRequest() || edited.GetSender().GetLogin() != "alice" {
		t.Fatalf("edited payload: %+v", edited)
	}
	var deleted github.IssueCommentEvent
	pullsJSON(t, fx.hooks.of("issue_comment", "deleted")[0].Body, &deleted)
	if deleted.GetComment().GetID() != ids[2] {
		t.Fatalf("deleted payload: %+v", deleted.GetComment())
	}
	// Opening the issue sent issues "opened" (TestIssuesWebhooks); its
	// comments sent no other issues event.
	if n := len(fx.hooks.of("issues", "")); n != 1 || len(fx.hooks.of("issues", "opened")) != 1 {
		t.Fatalf("issues webhooks: %d", n)
	}
}

func TestIssuesReactions(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	bot := fx.env.Client(fx.env.InstallationToken(t))
	if _, _, err := fx.bob.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Talk")}); err != nil {
		t.Fatal(err)
	}
	cm, _, err := fx.alice.Issues.CreateComment(ctx, "acme", "catalog", 1, &github.IssueComment{Body: github.String("/porch list")})
	if err != nil {
		t.Fatal(err)
	}
	r1, resp, err := bot.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", cm.GetID(), "eyes")
	if err != nil || resp.StatusCode != http.StatusCreated || r1.GetContent() != "eyes" || r1.GetUser().GetLogin() != "porchbot[bot]" {
		t.Fatalf("react: %v %+v", err, r1)
	}
	r2, resp, err := bot.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", cm.GetID(), "eyes")
	if err != nil || resp.StatusCode != http.StatusOK || r2.GetID() != r1.GetID() {
		t.Fatalf("react again: %v status %d id %d/%d", err, resp.StatusCode, r2.GetID(), r1.GetID())
	}
	if _, _, err := fx.carol.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", cm.GetID(), "heart"); err != nil {
		t.Fatal(err)
	}
	_, resp, err = fx.carol.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", cm.GetID(), "thumbsup")
	pullsWantStatus(t, "bad content", resp, err, 422)
	_, resp, err = fx.mallory.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", cm.GetID(), "eyes")
	pullsWantStatus(t, "mallory reacts", resp, err, 404)
	_, resp, err = fx.carol.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", 12345678, "eyes")
	pullsWantStatus(t, "no such comment", resp, err, 404)

	rs, _, err := fx.carol.Reactions.ListIssueCommentReactions(ctx, "acme", "catalog", cm.GetID(), nil)
	if err != nil || len(rs) != 2 {
		t.Fatalf("list: %v %d", err, len(rs))
	}
	req, _ := fx.carol.NewRequest(http.MethodGet, fmt.Sprintf("repos/acme/catalog/issues/comments/%d/reactions?content=eyes", cm.GetID()), nil)
	rs = nil
	if _, err := fx.carol.Do(ctx, req, &rs); err != nil || len(rs) != 1 || rs[0].GetID() != r1.GetID() {
		t.Fatalf("filtered: %+v", rs)
	}
	got, _, _ := fx.carol.Issues.GetComment(ctx, "acme", "catalog", cm.GetID())
	if re := got.GetReactions(); re.GetTotalCount() != 2 || re.GetEyes() != 1 || re.GetHeart() != 1 || re.GetPlusOne() != 0 {
		t.Fatalf("comment reactions: %+v", re)
	}

	// Issues take reactions too.
	ir, resp, err := fx.carol.Reactions.CreateIssueReaction(ctx, "acme", "catalog", 1, "+1")
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("issue reaction: %v", err)
	}
	_, resp, _ = fx.carol.Reactions.CreateIssueReaction(ctx, "acme", "catalog", 1, "+1")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("issue reaction again: %d", resp.StatusCode)
	}
	is, _, _ := fx.carol.Issues.Get(ctx, "acme", "catalog", 1)
	if is.GetReactions().GetPlusOne() != 1 {
		t.Fatalf("issue reactions: %+v", is.GetReactions())
	}
	// Delete: one's own only.
	if _, err := fx.bob.Reactions.DeleteIssueReaction(ctx, "acme", "catalog", 1, ir.GetID()); err == nil {
		t.Fatal("bob deleted carol's reaction")
	}
	if _, err := fx.carol.Reactions.DeleteIssueReaction(ctx, "acme", "catalog", 1, ir.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.Reactions.DeleteIssueCommentReaction(ctx, "acme", "catalog", cm.GetID(), r1.GetID()); err != nil {
		t.Fatal(err)
	}
	rs, _, _ = fx.carol.Reactions.ListIssueCommentReactions(ctx, "acme", "catalog", cm.GetID(), nil)
	if len(rs) != 1 || rs[0].GetContent() != "heart" {
		t.Fatalf("after delete: %+v", rs)
	}
}

func TestIssuesLabels(t *testing.T) {
	fx := newPullsFixture(t)
	ctx := fx.ctx
	fx.branch(t, "feature", "main", "bob")
	fx.commit(t, "feature", pullsWithFiles(pullsBaseFiles, "x.txt", "x\n"), "x", "bob")
	fx.openPull(t, fx.bob, "feature", "x")

	l, resp, err := fx.alice.Issues.CreateLabel(ctx, "acme", "catalog", &github.Label{Name: github.String("porch/approved"), Color: github.String("0e8a16"), Description: github.String("Approved")})
	if err != nil || resp.StatusCode != http.StatusCreated || l.GetColor() != "0e8a16" || !strings.HasSuffix(l.GetURL(), "/labels/porch%2Fapproved") {
		t.Fatalf("create label: %v %+v", err, l)
	}
	_, resp, err = fx.alice.Issues.CreateLabel(ctx, "acme", "catalog", &github.Label{Name: github.String("PORCH/approved")})
	pullsWantStatus(t, "duplicate label", resp, err, 422)
	_, resp, err = fx.carol.Issues.CreateLabel(ctx, "acme", "catalog", &github.Label{Name: github.String("x")})
	pullsWantStatus(t, "carol creates label", resp, err, 403)
	got, _, err := fx.carol.Issues.GetLabel(ctx, "acme", "catalog", "needs-review")
	if err == nil {
		t.Fatalf("unknown label: %+v", got)
	}

	// Adding labels creates the missing ones.
	ls, _, err := fx.bob.Issues.AddLabelsToIssue(ctx, "acme", "catalog", 1, []string{"porch/approved", "needs-review"})
	if err != nil || len(ls) != 2 || ls[0].GetColor() != "0e8a16" || ls[1].GetName() != "needs-review" || ls[1].GetColor() != "ededed" {
		t.Fatalf("add labels: %v %+v", err, ls)
	}
	got, _, err = fx.carol.Issues.GetLabel(ctx, "acme", "catalog", "needs-review")
	if err != nil || got.GetName() != "needs-review" {
		t.Fatalf("auto-created label: %v", err)
	}
	all, _, _ := fx.carol.Issues.ListLabels(ctx, "acme", "catalog", nil)
	if len(all) != 2 {
		t.Fatalf("repository labels: %d", len(all))
	}
	// Adding again changes nothing and sends nothing.
	if _, _, err := fx.bob.Issues.AddLabelsToIssue(ctx, "acme", "catalog", 1, []string{"needs-review"}); err != nil {
		t.Fatal(err)
	}
	// Replace, remove one, remove a missing one.
	ls, _, err = fx.bob.Issues.ReplaceLabelsForIssue(ctx, "acme", "catalog", 1, []string{"needs-review", "size/s"})
	if err != nil || len(ls) != 2 || ls[1].GetName() != "size/s" {
		t.Fatalf("replace: %v %+v", err, ls)
	}
	if _, err := fx.bob.Issues.RemoveLabelForIssue(ctx, "acme", "catalog", 1, "needs-review"); err != nil {
		t.Fatal(err)
	}
	resp, err = fx.bob.Issues.RemoveLabelForIssue(ctx, "acme", "catalog", 1, "needs-review")
	pullsWantStatus(t, "remove absent label", resp, err, 404)
	ls, _, _ = fx.carol.Issues.ListLabelsByIssue(ctx, "acme", "catalog", 1, nil)
	if len(ls) != 1 || ls[0].GetName() != "size/s" {
		t.Fatalf("issue labels: %+v", ls)
	}
	// Deleting a label removes it from the issues.
	if _, err := fx.alice.Issues.DeleteLabel(ctx, "acme", "catalog", "size/s"); err != nil {
		t.Fatal(err)
	}
	ls, _, _ = fx.carol.Issues.ListLabelsByIssue(ctx, "acme", "catalog", 1, nil)
	if len(ls) != 0 {
		t.Fatalf("labels after delete: %+v", ls)
	}

	fx.env.WaitDeliveries(t)
	var seq []string
	for _, h := range fx.hooks.of("pull_request", "") {
		if h.Action == "labeled" || h.Action == "unlabeled" {
			var ev github.PullRequestEvent
			pullsJSON(t, h.Body, &ev)
			seq = append(seq, h.Action+":"+ev.GetLabel().GetName())
		}
	}
	want := "labeled:porch/approved labeled:needs-review labeled:size/s unlabeled:porch/approved unlabeled:needs-review"
	if strings.Join(seq, " ") != want {
		t.Fatalf("label webhooks:\n %s\nwant\n %s", strings.Join(seq, " "), want)
	}
}
