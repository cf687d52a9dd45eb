package forge

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Builders of pull request, review, commit and file objects, shared by the
// REST answers and the webhook payloads.

// pullObject is a pull request. full adds what GitHub's single pull
// request answers and pull_request webhooks carry beyond the "simple"
// objects of lists and review payloads: merged, mergeable, merged_by,
// comment and commit counts, diff statistics.
func (f *Forge) pullObject(repo *Repo, v issueView, full bool) *github.PullRequest {
	pr := v.Pull
	is := v.Issue
	api, web := f.repoURLs(repo)
	self := fmt.Sprintf("%s/pulls/%d", api, is.Number)
	html := fmt.Sprintf("%s/pull/%d", web, is.Number)
	issueURL := fmt.Sprintf("%s/issues/%d", api, is.Number)
	statuses := api + "/statuses/" + pr.HeadSHA
	ro := f.repoObject(repo)
	branch := func(in *Repo, obj *github.Repository, ref, sha string) *github.PullRequestBranch {
		return &github.PullRequestBranch{
			Label: github.String(in.Owner.Login + ":" + ref), Ref: github.String(ref), SHA: github.String(sha),
			Repo: obj, User: f.userObject(in.Owner),
		}
	}
	headRepo, headObj := repo, ro
	if pr.HeadRepo != nil {
		headRepo, headObj = pr.HeadRepo, f.repoObject(pr.HeadRepo)
	}
	link := func(h string) *github.PRLink { return &github.PRLink{HRef: github.String(h)} }
	obj := &github.PullRequest{
		ID: github.Int64(pr.ID), NodeID: github.String(nodeID("PullRequest", pr.ID)),
		Number: github.Int(is.Number), State: github.String(is.State), Locked: github.Bool(is.Locked),
		Title: github.String(is.Title), User: f.userObject(is.User),
		CreatedAt: ts(is.CreatedAt), UpdatedAt: ts(is.UpdatedAt),
		Labels:             f.labelObjects(repo, v.Labels),
		Assignees:          f.usersObjects(is.Assignees),
		RequestedReviewers: f.usersObjects(pr.RequestedReviewers),
		Draft:              github.Bool(pr.Draft),
		AuthorAssociation:  github.String(f.authorAssociation(repo, is.User)),
		URL:                github.String(self), HTMLURL: github.String(html),
		DiffURL: github.String(html + ".diff"), PatchURL: github.String(html + ".patch"),
		IssueURL:          github.String(issueURL),
		CommitsURL:        github.String(self + "/commits"),
		ReviewCommentsURL: github.String(self + "/comments"),
		ReviewCommentURL:  github.String(api + "/pulls/comments{/number}"),
		CommentsURL:       github.String(issueURL + "/comments"),
		StatusesURL:       github.String(statuses),
		Head:              branch(headRepo, headObj, pr.Head, pr.HeadSHA),
		Base:              branch(repo, ro, pr.Base, pr.BaseSHA),
		Links: &github.PRLinks{
			Self: link(self), HTML: link(html), Issue: link(issueURL), Comments: link(issueURL + "/comments"),
			ReviewComments: link(self + "/comments"), ReviewComment: link(api + "/pulls/comments{/number}"),
			Commits: link(self + "/commits"), Statuses: link(statuses),
		},
	}
	if is.Body != "" {
		obj.Body = github.String(is.Body)
	}
	if len(obj.Assignees) > 0 {
		obj.Assignee = obj.Assignees[0]
	}
	if is.ClosedAt != nil {
		obj.ClosedAt = ts(*is.ClosedAt)
	}
	if pr.MergedAt != nil {
		obj.MergedAt = ts(*pr.MergedAt)
	}
	if pr.MergeCommitSHA != "" {
		obj.MergeCommitSHA = github.String(pr.MergeCommitSHA)
	} else if sha, clean, ok := f.testMerge(repo.Path, pr.BaseSHA, pr.HeadSHA); ok && clean {
		// Before the merge, GitHub names its test merge commit here.
		obj.MergeCommitSHA = github.String(sha)
	}
	if !full {
		return obj
	}
	obj.Merged = github.Bool(pr.Merged)
	obj.MergedBy = f.userObject(pr.MergedBy)
	obj.Comments = github.Int(v.Comments)
	obj.ReviewComments = github.Int(0)
	obj.MaintainerCanModify = github.Bool(pr.MaintainerCanModify)
	info := f.pullGit(repo.Path, pr.BaseSHA, pr.HeadSHA)
	obj.Commits = github.Int(info.commits)
	obj.Additions = github.Int(info.additions)
	obj.Deletions = github.Int(info.deletions)
	obj.ChangedFiles = github.Int(info.changedFiles)
	switch {
	case !info.ok:
		obj.MergeableState = github.String("unknown")
	default:
		obj.Mergeable = github.Bool(info.mergeable)
		obj.Rebaseable = github.Bool(info.mergeable)
		state := "clean"
		if !info.mergeable {
			state = "dirty"
		} else if pr.Draft {
			state = "draft"
		}
		obj.MergeableState = github.String(state)
	}
	return obj
}

// reviewLinks are a review's "_links" (go-github's type lacks them).
type reviewLinks struct {
	HTML        *github.PRLink `json:"html"`
	PullRequest *github.PRLink `json:"pull_request"`
}

// reviewJSON is a review as GitHub answers it.
type reviewJSON struct {
	*github.PullRequestReview
	Links reviewLinks `json:"_links"`
}

// reviewObject is a pull request review. Webhooks spell the state in
// lower case ("approved"), the REST API in upper case ("APPROVED").
func (f *Forge) reviewObject(repo *Repo, rv Review, webhook bool) *reviewJSON {
	api, web := f.repoURLs(repo)
	html := fmt.Sprintf("%s/pull/%d#pullrequestreview-%d", web, rv.PullNum, rv.ID)
	pull := fmt.Sprintf("%s/pulls/%d", api, rv.PullNum)
	state := rv.State
	if webhook {
		state = strings.ToLower(state)
	}
	obj := &github.PullRequestReview{
		ID: github.Int64(rv.ID), NodeID: github.String(nodeID("PullRequestReview", rv.ID)),
		User: f.userObject(rv.User), CommitID: github.String(rv.CommitID),
		HTMLURL: github.String(html), PullRequestURL: github.String(pull), State: github.String(state),
		AuthorAssociation: github.String(f.authorAssociation(repo, rv.User)),
	}
	if rv.Body != "" || !webhook {
		obj.Body = github.String(rv.Body)
	}
	if rv.State != "PENDING" && !rv.SubmittedAt.IsZero() {
		obj.SubmittedAt = ts(rv.SubmittedAt)
	}
	return &reviewJSON{PullRequestReview: obj, Links: reviewLinks{
		HTML: &github.PRLink{HRef: github.String(html)}, PullRequest: &github.PRLink{HRef: github.String(pull)}}}
}

// accountByEmail finds the account whose git email is email.
func (f *Forge) accountByEmail(email string) *Account {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, a := range f.accounts {
		if strings.EqualFold(a.Email, email) {
			return a
		}
	}
	return nil
}

// commitObject is a commit as the commits endpoints list it.
func (f *Forge) commitObject(repo *Repo, c gitCommit) *github.RepositoryCommit {
	api, web := f.repoURLs(repo)
	parents := []*github.Commit{} // a root commit's is [], not absent
	for _, p := range c.parents {
		parents = append(parents, &github.Commit{SHA: github.String(p),
			URL: github.String(api + "/commits/" + p), HTMLURL: github.String(web + "/commit/" + p)})
	}
	sig := func(s Signature) *github.CommitAuthor {
		return &github.CommitAuthor{Name: github.String(s.Name), Email: github.String(s.Email), Date: ts(s.When)}
	}
	obj := &github.RepositoryCommit{
		SHA: github.String(c.sha), NodeID: github.String(base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("06:Commit%d:%s", repo.ID, c.sha)))),
		Commit: &github.Commit{
			Author: sig(c.author), Committer: sig(c.committer), Message: github.String(c.message),
			Tree:         &github.Tree{SHA: github.String(c.tree)},
			URL:          github.String(api + "/git/commits/" + c.sha),
			CommentCount: github.Int(0),
			Verification: &github.SignatureVerification{Verified: github.Bool(false), Reason: github.String("unsigned")},
		},
		URL: github.String(api + "/commits/" + c.sha), HTMLURL: github.String(web + "/commit/" + c.sha),
		CommentsURL: github.String(api + "/commits/" + c.sha + "/comments"),
		Parents:     parents,
	}
	if a := f.accountByEmail(c.author.Email); a != nil {
		obj.Author = f.userObject(a)
	}
	if a := f.accountByEmail(c.committer.Email); a != nil {
		obj.Committer = f.userObject(a)
	}
	return obj
}

// fileObject is a changed file of a pull request.
func (f *Forge) fileObject(repo *Repo, head string, d diffFile) *github.CommitFile {
	api, web := f.repoURLs(repo)
	esc := (&url.URL{Path: d.path}).EscapedPath()
	obj := &github.CommitFile{
		SHA: github.String(d.sha), Filename: github.String(d.path), Status: github.String(d.status),
		Additions: github.Int(d.additions), Deletions: github.Int(d.deletions), Changes: github.Int(d.additions + d.deletions),
		BlobURL:     github.String(web + "/blob/" + head + "/" + esc),
		RawURL:      github.String(web + "/raw/" + head + "/" + esc),
		ContentsURL: github.String(api + "/contents/" + esc + "?ref=" + head),
	}
	if d.patch != "" {
		obj.Patch = github.String(d.patch)
	}
	if d.oldPath != "" {
		obj.PreviousFilename = github.String(d.oldPath)
	}
	return obj
}
