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

func (f *Forge) listRequestedReviewers(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	v := viewPull(rc.repo, rc.number)
	// A map, not go-github's Reviewers: GitHub sends both lists, empty too.
	writeJSON(w, r, http.StatusOK, map[string]any{"users": f.usersObjects(v.Pull.RequestedReviewers), "teams": []*github.Team{}})
}

// requestReviewers asks users for a review; they must be able to read the
// repository and may not be the author (422, as GitHub).
func (f *Forge) requestReviewers(w http.ResponseWriter, r *http.Request, rc *reqCtx, req reviewersRequest) {
	var accounts []*Account
	for _, login := range req.Reviewers {
		a, ok := f.Account(login)
		if !ok || a.Type == "Organization" || f.userPermission(a.Login, rc.repo) < PermRead {
			validationFailed(w, "PullRequest", "reviewers", "custom",
				"Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the "+rc.repo.FullName()+" repository.")
			return
		}
		accounts = append(accounts, a)
	}
	perm := rc.perm
	rc.repo.mu.Lock()
	pr := rc.repo.Pulls[rc.number]
	if pr.Issue.User.ID != rc.actor().ID && perm < PermTriage {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have triage access to request reviews.")
		return
	}
	var added []*Account
	for _, a := range accounts {
		if a.ID == pr.Issue.User.ID {
			rc.repo.mu.Unlock()
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
	v := viewIssueLocked(rc.repo, pr.Issue)
	rc.repo.mu.Unlock()
	for _, a := range added {
		f.emitPull(rc.repo, pullEvent{view: v, action: "review_requested", sender: rc.actor(), requested: a})
	}
	writeJSON(w, r, http.StatusCreated, f.pullObject(rc.repo, v, false))
}

// removeRequestedReviewers withdraws review requests.
func (f *Forge) removeRequestedReviewers(w http.ResponseWriter, r *http.Request, rc *reqCtx, req reviewersRequest) {
	perm := rc.perm
	rc.repo.mu.Lock()
	pr := rc.repo.Pulls[rc.number]
	if pr.Issue.User.ID != rc.actor().ID && perm < PermTriage {
		rc.repo.mu.Unlock()
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
	v := viewIssueLocked(rc.repo, pr.Issue)
	rc.repo.mu.Unlock()
	for _, login := range removed {
		if a, ok := f.Account(login); ok {
			f.emitPull(rc.repo, pullEvent{view: v, action: "review_request_removed", sender: rc.actor(), requested: a})
		}
	}
	writeJSON(w, r, http.StatusOK, f.pullObject(rc.repo, v, false))
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
