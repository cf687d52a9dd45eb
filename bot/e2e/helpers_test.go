package e2e

import (
	"errors"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
)

// Helpers of the lifecycle scenarios: what a user sees through the forge's
// REST API, read as the user alice unless said otherwise.

// botLogin is the App's bot user as the forge shows it.
const botLogin = approval.DefaultBotLogin

func splitRepo(repo string) (string, string) {
	owner, name, _ := strings.Cut(repo, "/")
	return owner, name
}

func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// createIssue opens an issue as user and returns its number.
func (w *world) createIssue(user, repo, title string) int {
	w.t.Helper()
	owner, name := splitRepo(repo)
	is, _, err := w.client(user).Issues.Create(w.ctx, owner, name, &github.IssueRequest{Title: github.String(title)})
	if err != nil {
		w.t.Fatalf("create issue in %s as %s: %v", repo, user, err)
	}
	return is.GetNumber()
}

// comment posts a comment as user on issue or pull request n.
func (w *world) comment(user, repo string, n int, body string) *github.IssueComment {
	w.t.Helper()
	return w.commentWith(w.client(user), repo, n, body)
}

func (w *world) commentWith(c *github.Client, repo string, n int, body string) *github.IssueComment {
	w.t.Helper()
	w.laterSecond() // as a person's: after what they read (GitHub dates to the second)
	owner, name := splitRepo(repo)
	cm, _, err := c.Issues.CreateComment(w.ctx, owner, name, n, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		w.t.Fatalf("comment on %s#%d: %v", repo, n, err)
	}
	return cm
}

// comments lists the comments of issue or pull request n, oldest first.
func (w *world) comments(repo string, n int) []*github.IssueComment {
	w.t.Helper()
	owner, name := splitRepo(repo)
	var all []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := w.client("alice").Issues.ListComments(w.ctx, owner, name, n, opts)
		if err != nil {
			w.t.Fatalf("comments of %s#%d: %v", repo, n, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all
		}
		opts.Page = resp.NextPage
	}
}

// botComments are the comments of n written by porchbot.
func (w *world) botComments(repo string, n int) []*github.IssueComment {
	w.t.Helper()
	var out []*github.IssueComment
	for _, c := range w.comments(repo, n) {
		if c.GetUser().GetLogin() == botLogin {
			out = append(out, c)
		}
	}
	return out
}

// replyTo is porchbot's reply to the comment by author that ran commands
// (the reply starts with "@author"), the first one posted after it.
func (w *world) replyTo(repo string, n int, after *github.IssueComment) *github.IssueComment {
	w.t.Helper()
	seen := false
	for _, c := range w.comments(repo, n) {
		if c.GetID() == after.GetID() {
			seen = true
			continue
		}
		if seen && c.GetUser().GetLogin() == botLogin && strings.HasPrefix(c.GetBody(), "@"+after.GetUser().GetLogin()) {
			return c
		}
	}
	w.t.Fatalf("no reply by porchbot to comment %d (%q) on %s#%d", after.GetID(), after.GetBody(), repo, n)
	return nil
}

// branchSHA is the head of a branch ("" when there is none).
func (w *world) branchSHA(repo, branch string) string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	ref, _, err := w.client("alice").Git.GetRef(w.ctx, owner, name, "heads/"+branch)
	if isNotFound(err) {
		return ""
	}
	if err != nil {
		w.t.Fatalf("branch %s of %s: %v", branch, repo, err)
	}
	return ref.GetObject().GetSHA()
}

// tags lists the tags of repo under prefix (e.g. "network/upf/") with their
// commits (annotated tags, porchbot's, peeled).
func (w *world) tags(repo, prefix string) map[string]string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	out, err := forgetest.Tags(w.ctx, w.client("alice"), owner, name, prefix)
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// revisions are the revision numbers of pkg's tags, ascending.
func (w *world) revisions(repo, pkg string) []int {
	w.t.Helper()
	var names []string
	for tag := range w.tags(repo, pkg+"/v") {
		names = append(names, tag)
	}
	revs := packages.Revisions(names)[pkg]
	sort.Ints(revs)
	return revs
}

// releases lists the release tags of repo, as many times as they appear.
func (w *world) releases(repo string) []string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	var out []string
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := w.client("alice").Repositories.ListReleases(w.ctx, owner, name, opts)
		if err != nil {
			w.t.Fatalf("releases of %s: %v", repo, err)
		}
		for _, r := range page {
			out = append(out, r.GetTagName())
		}
		if resp.NextPage == 0 {
			sort.Strings(out)
			return out
		}
		opts.Page = resp.NextPage
	}
}

// file reads a file at a ref (ok false when absent).
func (w *world) file(repo, ref, path string) (string, bool) {
	w.t.Helper()
	owner, name := splitRepo(repo)
	f, _, _, err := w.client("alice").Repositories.GetContents(w.ctx, owner, name, path, &github.RepositoryContentGetOptions{Ref: ref})
	if isNotFound(err) {
		return "", false
	}
	if err != nil {
		w.t.Fatalf("%s at %s in %s: %v", path, ref, repo, err)
	}
	if f == nil {
		w.t.Fatalf("%s at %s in %s is a directory", path, ref, repo)
	}
	s, err := f.GetContent()
	if err != nil {
		w.t.Fatal(err)
	}
	return s, true
}

// kptfileAt parses the Kptfile of the package in dir at ref.
func (w *world) kptfileAt(repo, ref, dir string) *kptfile.Kptfile {
	w.t.Helper()
	data, ok := w.file(repo, ref, dir+"/Kptfile")
	if !ok {
		w.t.Fatalf("no %s/Kptfile at %s in %s", dir, ref, repo)
	}
	f, err := kptfile.ParseFile(dir+"/Kptfile", []byte(data))
	if err != nil {
		w.t.Fatalf("%s/Kptfile at %s: %v", dir, ref, err)
	}
	return f.Kptfile()
}

// commitMessage is the message of a commit.
func (w *world) commitMessage(repo, sha string) string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	c, _, err := w.client("alice").Git.GetCommit(w.ctx, owner, name, sha)
	if err != nil {
		w.t.Fatalf("commit %s of %s: %v", sha, repo, err)
	}
	return c.GetMessage()
}

// trailer is the Porch kpt: trailer of a commit.
func (w *world) trailer(repo, sha string) packages.Trailer {
	w.t.Helper()
	msg := w.commitMessage(repo, sha)
	tr, ok := packages.FindTrailer(msg)
	if !ok {
		w.t.Fatalf("commit %s has no kpt: trailer:\n%s", sha, msg)
	}
	return tr
}

// labels are the label names of issue or pull request n.
func (w *world) labels(repo string, n int) []string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	ls, _, err := w.client("alice").Issues.ListLabelsByIssue(w.ctx, owner, name, n, nil)
	if err != nil {
		w.t.Fatalf("labels of %s#%d: %v", repo, n, err)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.GetName()
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pull reads pull request n.
func (w *world) pull(repo string, n int) *github.PullRequest {
	w.t.Helper()
	owner, name := splitRepo(repo)
	pr, _, err := w.client("alice").PullRequests.Get(w.ctx, owner, name, n)
	if err != nil {
		w.t.Fatalf("pull request %s#%d: %v", repo, n, err)
	}
	return pr
}

// pullFrom is the pull request (any state) whose head is branch, nil if none.
func (w *world) pullFrom(repo, branch string) *github.PullRequest {
	w.t.Helper()
	owner, name := splitRepo(repo)
	prs, _, err := w.client("alice").PullRequests.List(w.ctx, owner, name, &github.PullRequestListOptions{State: "all",
		Head: owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		w.t.Fatalf("pull requests of %s: %v", branch, err)
	}
	for _, pr := range prs {
		if pr.GetHead().GetRef() == branch {
			return pr
		}
	}
	return nil
}

// openPull opens a pull request from branch into main as user.
func (w *world) openPull(user, repo, branch, title string) *github.PullRequest {
	w.t.Helper()
	owner, name := splitRepo(repo)
	pr, _, err := w.client(user).PullRequests.Create(w.ctx, owner, name, &github.NewPullRequest{
		Title: github.String(title), Head: github.String(branch), Base: github.String("main")})
	if err != nil {
		w.t.Fatalf("open pull request from %s: %v", branch, err)
	}
	return pr
}

// approve submits an approving review as user.
func (w *world) approve(user, repo string, n int) {
	w.t.Helper()
	owner, name := splitRepo(repo)
	if _, _, err := w.client(user).PullRequests.CreateReview(w.ctx, owner, name, n,
		&github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		w.t.Fatalf("%s approving %s#%d: %v", user, repo, n, err)
	}
}

// merge merges pull request n with a merge commit as user and returns it.
func (w *world) merge(user, repo string, n int) string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	res, _, err := w.client(user).PullRequests.Merge(w.ctx, owner, name, n, "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		w.t.Fatalf("merge %s#%d: %v", repo, n, err)
	}
	return res.GetSHA()
}

// checkRunMaybe is the latest check run of name on ref, nil when there is none.
func (w *world) checkRunMaybe(repo, ref, name string) *github.CheckRun {
	w.t.Helper()
	owner, n := splitRepo(repo)
	res, _, err := w.client("alice").Checks.ListCheckRunsForRef(w.ctx, owner, n, ref, &github.ListCheckRunsOptions{CheckName: github.String(name)})
	if err != nil {
		w.t.Fatal(err)
	}
	if len(res.CheckRuns) == 0 {
		return nil
	}
	return res.CheckRuns[0]
}
