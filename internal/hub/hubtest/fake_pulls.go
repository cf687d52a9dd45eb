package hubtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/porchbot/porchbot/internal/hub"
)

// The pull request calls of Fake.

// pull is the index of pull request number in Pulls (-1: none).
func (f *Fake) pull(number int) int {
	return slices.IndexFunc(f.Pulls, func(p hub.Pull) bool { return p.Number == number })
}

// clonePull is p sharing nothing with the fake's state.
func clonePull(p hub.Pull) hub.Pull {
	p.Labels = slices.Clone(p.Labels)
	if p.Comments != nil {
		n := *p.Comments
		p.Comments = &n
	}
	return p
}

// nextNumber is the number of the next pull request or issue (they share
// their numbers, as on GitHub).
func (f *Fake) nextNumber() int {
	n := 0
	for _, p := range f.Pulls {
		n = max(n, p.Number)
	}
	for _, i := range f.Issues {
		n = max(n, i.Number)
	}
	return n + 1
}

// headMatches reports whether b is the head a listing's "owner:branch"
// (or "branch") names.
func headMatches(b hub.Branch, head string) bool {
	owner, ref, ok := strings.Cut(head, ":")
	if !ok {
		return b.Ref == head
	}
	if b.Label != "" {
		return strings.EqualFold(b.Label, head)
	}
	return b.Ref == ref && (b.RepoOwner == "" || strings.EqualFold(b.RepoOwner, owner))
}

// ListPulls lists the Pulls q keeps: its State ("" open), Head
// ("owner:branch") and Base.
func (f *Fake) ListPulls(_ context.Context, _, _ string, q hub.PullQuery) ([]hub.Pull, hub.Next, error) {
	defer f.begin("ListPulls")()
	var out []hub.Pull
	for _, p := range f.Pulls {
		if wantState(q.State, p.State) && (q.Head == "" || headMatches(p.Head, q.Head)) &&
			(q.Base == "" || p.Base.Ref == q.Base) {
			out = append(out, clonePull(p))
		}
	}
	return out, hub.Next{}, nil
}

// GetPull is pull request number.
func (f *Fake) GetPull(_ context.Context, _, _ string, number int) (hub.Pull, error) {
	defer f.begin("GetPull")()
	i := f.pull(number)
	if i < 0 {
		return hub.Pull{}, answer(http.StatusNotFound)
	}
	return clonePull(f.Pulls[i]), nil
}

// branch is a side of a new pull request: ref ("owner:branch" or a
// branch of owner/repo) at its commit in Refs.
func (f *Fake) branch(owner, repo, ref string) hub.Branch {
	if o, r, ok := strings.Cut(ref, ":"); ok {
		return hub.Branch{Ref: r, SHA: f.Refs["refs/heads/"+r], Label: ref, RepoOwner: o}
	}
	return hub.Branch{Ref: ref, SHA: f.Refs["refs/heads/"+ref], Label: owner + ":" + ref,
		RepoOwner: owner, RepoName: repo, RepoFullName: owner + "/" + repo,
		RepoHTMLURL: "https://github.com/" + owner + "/" + repo}
}

// CreatePull appends an open pull request; 422 without a title, head or
// base, or when an open one has the same head and base.
func (f *Fake) CreatePull(_ context.Context, owner, repo string, np hub.NewPull) (hub.Pull, error) {
	defer f.begin("CreatePull")()
	if np.Title == "" || np.Head == "" || np.Base == "" {
		return hub.Pull{}, answer(http.StatusUnprocessableEntity, "missing_field")
	}
	head, base := f.branch(owner, repo, np.Head), f.branch(owner, repo, np.Base)
	for _, p := range f.Pulls {
		if p.IsOpen() && headMatches(p.Head, head.Label) && p.Base.Ref == base.Ref {
			return hub.Pull{}, answer(http.StatusUnprocessableEntity, "custom")
		}
	}
	now, zero := f.now(), 0
	n := f.nextNumber()
	p := hub.Pull{Number: n, Title: np.Title, Body: np.Body, State: "open", Draft: np.Draft,
		CreatedAt: now, UpdatedAt: now, User: f.user(), Head: head, Base: base,
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, n), Comments: &zero}
	f.Pulls = append(f.Pulls, p)
	return clonePull(p), nil
}

// EditPull sets e's non-empty fields; 422 for a state not open or
// closed.
func (f *Fake) EditPull(_ context.Context, _, _ string, number int, e hub.PullEdit) (hub.Pull, error) {
	defer f.begin("EditPull")()
	i := f.pull(number)
	if i < 0 {
		return hub.Pull{}, answer(http.StatusNotFound)
	}
	if e.State != "" && !validState(e.State) {
		return hub.Pull{}, answer(http.StatusUnprocessableEntity, "invalid")
	}
	p := &f.Pulls[i]
	if e.Title != "" {
		p.Title = e.Title
	}
	if e.Body != "" {
		p.Body = e.Body
	}
	if e.State != "" {
		p.State = e.State
	}
	if e.Base != "" {
		p.Base.Ref, p.Base.SHA = e.Base, f.Refs["refs/heads/"+e.Base]
	}
	p.UpdatedAt = f.now()
	return clonePull(*p), nil
}

// MergePull closes pull request number as merged with a made-up merge
// commit, which its base branch (in Refs) moves to. 405 when it is not
// open or a draft, 409 when m.SHA is not its head.
func (f *Fake) MergePull(_ context.Context, _, _ string, number int, m hub.Merge) (string, error) {
	defer f.begin("MergePull")()
	i := f.pull(number)
	if i < 0 {
		return "", answer(http.StatusNotFound)
	}
	p := &f.Pulls[i]
	if !p.IsOpen() || p.Draft {
		return "", answer(http.StatusMethodNotAllowed)
	}
	if m.SHA != "" && m.SHA != p.Head.SHA {
		return "", answer(http.StatusConflict)
	}
	sha := fakeSHA("merge", p.Number, p.Base.SHA, p.Head.SHA, m.Message, m.Method)
	now := f.now()
	p.State, p.Merged, p.MergedAt, p.MergeCommitSHA, p.UpdatedAt = "closed", true, now, sha, now
	if _, ok := f.Refs["refs/heads/"+p.Base.Ref]; ok {
		f.Refs["refs/heads/"+p.Base.Ref] = sha
	}
	return sha, nil
}

// ListReviews lists Reviews[number].
func (f *Fake) ListReviews(_ context.Context, _, _ string, number int, _ hub.Page) ([]hub.Review, hub.Next, error) {
	defer f.begin("ListReviews")()
	if f.pull(number) < 0 {
		return nil, hub.Next{}, answer(http.StatusNotFound)
	}
	return slices.Clone(f.Reviews[number]), hub.Next{}, nil
}

// ListPullsWithCommit lists the Pulls whose head or merge commit is sha.
func (f *Fake) ListPullsWithCommit(_ context.Context, _, _, sha string, _ hub.Page) ([]hub.Pull, hub.Next, error) {
	defer f.begin("ListPullsWithCommit")()
	var out []hub.Pull
	for _, p := range f.Pulls {
		if p.Head.SHA == sha || p.MergeCommitSHA == sha {
			out = append(out, clonePull(p))
		}
	}
	return out, hub.Next{}, nil
}

// RequestReviewers adds to RequestedReviewers and RequestedTeams; 422
// when a user has no permission in Permissions (not a collaborator).
func (f *Fake) RequestReviewers(_ context.Context, _, _ string, number int, users, teams []string) error {
	defer f.begin("RequestReviewers")()
	if f.pull(number) < 0 {
		return answer(http.StatusNotFound)
	}
	for _, u := range users {
		if p, ok := f.Permissions[strings.ToLower(u)]; !ok || p.Level == "none" {
			return answer(http.StatusUnprocessableEntity)
		}
	}
	if len(users) > 0 {
		ensure(&f.RequestedReviewers)[number] = addNames(f.RequestedReviewers[number], users)
	}
	if len(teams) > 0 {
		ensure(&f.RequestedTeams)[number] = addNames(f.RequestedTeams[number], teams)
	}
	return nil
}
