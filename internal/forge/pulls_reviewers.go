package forge

import (
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Requested reviewers of pull requests (users; team requests are accepted
// and ignored: the forge does not track them).

type reviewersRequest struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}

func (f *Forge) listRequestedReviewers(w http.ResponseWriter, r *http.Request) {
	repo, _, n, ok := f.pullFor(w, r, PermRead)
	if !ok {
		return
	}
	v := viewPull(repo, n)
	// A map, not go-github's Reviewers: GitHub sends both lists, empty too.
	writeJSON(w, r, http.StatusOK, map[string]any{"users": f.usersObjects(v.Pull.RequestedReviewers), "teams": []*github.Team{}})
}

// requestReviewers asks users for a review; they must be able to read the
// repository and may not be the author (422, as GitHub).
func (f *Forge) requestReviewers(w http.ResponseWriter, r *http.Request) {
	repo, p, n, ok := f.pullFor(w, r, PermRead)
	if !ok {
		return
	}
	who, ok := requireActor(w, p)
	if !ok {
		return
	}
	var req reviewersRequest
	if !decodeBody(w, r, &req) {
		return
	}
	var accounts []*Account
	for _, login := range req.Reviewers {
		a, ok := f.Account(login)
		if !ok || a.Type == "Organization" || f.userPermission(a.Login, repo) < PermRead {
			validationFailed(w, "PullRequest", "reviewers", "custom",
				"Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the "+repo.FullName()+" repository.")
			return
		}
		accounts = append(accounts, a)
	}
	perm := f.permission(p, repo)
	repo.mu.Lock()
	pr := repo.Pulls[n]
	if pr.Issue.User.ID != who.ID && perm < PermTriage {
		repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have triage access to request reviews.")
		return
	}
	var added []*Account
	for _, a := range accounts {
		if a.ID == pr.Issue.User.ID {
			repo.mu.Unlock()
			validationFailed(w, "PullRequest", "reviewers", "custom", "Review cannot be requested from pull request author.")
			return
		}
		if !containsFold(pr.RequestedReviewers, a.Login) {
			pr.RequestedReviewers = append(pr.RequestedReviewers, a.Login)
			added = append(added, a)
		}
	}
	if len(added) > 0 {
		pr.Issue.UpdatedAt = f.now()
	}
	v := viewIssueLocked(repo, pr.Issue)
	repo.mu.Unlock()
	for _, a := range added {
		f.emitPull(repo, pullEvent{view: v, action: "review_requested", sender: who, requested: a})
	}
	writeJSON(w, r, http.StatusCreated, f.pullObject(repo, v, false))
}

// removeRequestedReviewers withdraws review requests.
func (f *Forge) removeRequestedReviewers(w http.ResponseWriter, r *http.Request) {
	repo, p, n, ok := f.pullFor(w, r, PermRead)
	if !ok {
		return
	}
	who, ok := requireActor(w, p)
	if !ok {
		return
	}
	var req reviewersRequest
	if !decodeBody(w, r, &req) {
		return
	}
	perm := f.permission(p, repo)
	repo.mu.Lock()
	pr := repo.Pulls[n]
	if pr.Issue.User.ID != who.ID && perm < PermTriage {
		repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have triage access to remove review requests.")
		return
	}
	var removed []string
	for _, login := range req.Reviewers {
		if containsFold(pr.RequestedReviewers, login) {
			pr.RequestedReviewers = removeFold(pr.RequestedReviewers, login)
			removed = append(removed, login)
		}
	}
	v := viewIssueLocked(repo, pr.Issue)
	repo.mu.Unlock()
	for _, login := range removed {
		if a, ok := f.Account(login); ok {
			f.emitPull(repo, pullEvent{view: v, action: "review_request_removed", sender: who, requested: a})
		}
	}
	writeJSON(w, r, http.StatusOK, f.pullObject(repo, v, false))
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func removeFold(list []string, s string) []string {
	out := list[:0:0]
	for _, x := range list {
		if !strings.EqualFold(x, s) {
			out = append(out, x)
		}
	}
	return out
}
