package forge

import (
	"encoding/json"
	"net/http"
	"sort"

	"github.com/gorilla/mux"
)

// routesReviews serves pull request reviews: create (pending or
// submitted), submit, list, get, update, delete a pending one, dismiss.
// Anyone who can read the repository may review, as on GitHub; the author
// may not approve (or request changes on) their own pull request.
func (f *Forge) routesReviews(api *mux.Router) {
	const base = "/repos/{owner}/{repo}/pulls/{number}/reviews"
	api.HandleFunc(base, f.repoHandler(PermRead, onPull(f.listReviews))).Methods(http.MethodGet)
	api.HandleFunc(base, f.repoHandler(PermRead, onPull(signedIn(withBody(f.createReview))))).Methods(http.MethodPost)
	api.HandleFunc(base+"/{review_id}", f.repoHandler(PermRead, onPull(f.getReview))).Methods(http.MethodGet)
	api.HandleFunc(base+"/{review_id}", f.repoHandler(PermRead, onPull(signedIn(withBody(f.updateReview))))).Methods(http.MethodPut)
	api.HandleFunc(base+"/{review_id}", f.repoHandler(PermRead, onPull(signedIn(f.deleteReview)))).Methods(http.MethodDelete)
	api.HandleFunc(base+"/{review_id}/events", f.repoHandler(PermRead, onPull(signedIn(withBody(f.submitReview))))).Methods(http.MethodPost)
	api.HandleFunc(base+"/{review_id}/dismissals", f.repoHandler(PermWrite, onPull(signedIn(withBody(f.dismissReview))))).Methods(http.MethodPut)
}

// reviewStates maps a review event to the state it leaves.
var reviewStates = map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}

// reviewRequest is the body of the create and submit endpoints.
type reviewRequest struct {
	CommitID *string           `json:"commit_id"`
	Body     *string           `json:"body"`
	Event    *string           `json:"event"`
	Comments []json.RawMessage `json:"comments"`
}

// checkReviewEvent validates an event for a reviewer; it answers and
// returns false when refused.
func checkReviewEvent(w http.ResponseWriter, state, body string, hasComments, isAuthor bool) bool {
	switch {
	case state == "APPROVED" && isAuthor:
		unprocessable(w, "Can not approve your own pull request")
		return false
	case state == "CHANGES_REQUESTED" && isAuthor:
		unprocessable(w, "Can not request changes on your own pull request")
		return false
	case (state == "CHANGES_REQUESTED" || state == "COMMENTED") && body == "" && !hasComments:
		unprocessable(w, "Body is required when the event is "+map[string]string{
			"CHANGES_REQUESTED": "REQUEST_CHANGES", "COMMENTED": "COMMENT"}[state])
		return false
	}
	return true
}

func (f *Forge) createReview(w http.ResponseWriter, r *http.Request, rc *reqCtx, req reviewRequest) {
	state := "PENDING"
	if req.Event != nil && *req.Event != "" && *req.Event != "PENDING" {
		s, known := reviewStates[*req.Event]
		if !known {
			validationFailed(w, "PullRequestReview", "event", "invalid", "event must be one of APPROVE, REQUEST_CHANGES, COMMENT")
			return
		}
		state = s
	}
	body := ""
	if req.Body != nil {
		body = *req.Body
	}
	commitID := ""
	if req.CommitID != nil && *req.CommitID != "" {
		sha, err := f.git.resolve(rc.repo.Path, *req.CommitID+"^{commit}")
		if err != nil {
			unprocessable(w, "Commit id "+*req.CommitID+" is not part of the pull request")
			return
		}
		commitID = sha
	}
	now := f.now()
	rc.repo.mu.Lock()
	pr := rc.repo.Pulls[rc.number]
	if !checkReviewEvent(w, state, body, len(req.Comments) > 0, pr.Issue.User.ID == rc.actor().ID) {
		rc.repo.mu.Unlock()
		return
	}
	if state == "PENDING" {
		for _, rv := range rc.repo.Reviews {
			if rv.PullNum == rc.number && rv.State == "PENDING" && rv.User.ID == rc.actor().ID {
				rc.repo.mu.Unlock()
				unprocessable(w, "User can only have one pending review per pull request")
				return
			}
		}
	}
	if commitID == "" {
		commitID = pr.HeadSHA
	}
	rv := &Review{ID: f.newID(), PullNum: rc.number, User: rc.actor(), Body: body, State: state, CommitID: commitID}
	if state != "PENDING" {
		rv.SubmittedAt = now
		pr.RequestedReviewers = removeFold(pr.RequestedReviewers, rc.actor().Login)
		pr.Issue.UpdatedAt = now
	}
	rc.repo.Reviews[rv.ID] = rv
	saved := *rv
	v := viewIssueLocked(rc.repo, pr.Issue)
	rc.repo.mu.Unlock()
	if state != "PENDING" {
		f.emitReview(rc.repo, "submitted", saved, v, rc.actor())
	}
	writeJSON(w, r, http.StatusOK, f.reviewObject(rc.repo, saved, false))
}

// reviewFor finds review {review_id} of pull request n that the caller
// may see (others' pending reviews are hidden), under repo.mu, which the
// caller then holds. It answers 404 and returns nil when there is none.
func (f *Forge) reviewFor(rc *reqCtx) *Review {
	id, ok := rc.intVar("review_id")
	if !ok {
		return nil
	}
	rc.repo.mu.Lock()
	rv := rc.repo.Reviews[id]
	if rv == nil || rv.PullNum != rc.number || rv.State == "PENDING" && (rc.actor() == nil || rv.User.ID != rc.actor().ID) {
		rc.repo.mu.Unlock()
		notFound(rc.w)
		return nil
	}
	return rv
}

func (f *Forge) getReview(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rv := f.reviewFor(rc)
	if rv == nil {
		return
	}
	saved := *rv
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.reviewObject(rc.repo, saved, false))
}

func (f *Forge) listReviews(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	who := rc.actor()
	rc.repo.mu.Lock()
	var list []Review
	for _, rv := range rc.repo.Reviews {
		if rv.PullNum == rc.number && (rv.State != "PENDING" || who != nil && rv.User.ID == who.ID) {
			list = append(list, *rv)
		}
	}
	rc.repo.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	page := paginate(w, r, f.BaseURL(), list)
	out := make([]*reviewJSON, 0, len(page))
	for _, rv := range page {
		out = append(out, f.reviewObject(rc.repo, rv, false))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// submitReview submits the caller's pending review with an event.
func (f *Forge) submitReview(w http.ResponseWriter, r *http.Request, rc *reqCtx, req reviewRequest) {
	state, known := "", false
	if req.Event != nil {
		state, known = reviewStates[*req.Event]
	}
	if !known {
		validationFailed(w, "PullRequestReview", "event", "invalid", "event must be one of APPROVE, REQUEST_CHANGES, COMMENT")
		return
	}
	rv := f.reviewFor(rc)
	if rv == nil {
		return
	}
	pr := rc.repo.Pulls[rc.number]
	if rv.User.ID != rc.actor().ID || rv.State != "PENDING" {
		rc.repo.mu.Unlock()
		unprocessable(w, "Can not submit a non-pending pull request review")
		return
	}
	body := rv.Body
	if req.Body != nil && *req.Body != "" {
		body = *req.Body
	}
	if !checkReviewEvent(w, state, body, false, pr.Issue.User.ID == rc.actor().ID) {
		rc.repo.mu.Unlock()
		return
	}
	now := f.now()
	rv.State, rv.Body, rv.SubmittedAt = state, body, now
	pr.RequestedReviewers = removeFold(pr.RequestedReviewers, rc.actor().Login)
	pr.Issue.UpdatedAt = now
	saved := *rv
	v := viewIssueLocked(rc.repo, pr.Issue)
	rc.repo.mu.Unlock()
	f.emitReview(rc.repo, "submitted", saved, v, rc.actor())
	writeJSON(w, r, http.StatusOK, f.reviewObject(rc.repo, saved, false))
}

// updateReview changes a review's body (its author only).
func (f *Forge) updateReview(w http.ResponseWriter, r *http.Request, rc *reqCtx, req struct {
	Body *string `json:"body"`
}) {
	if req.Body == nil {
		validationFailed(w, "PullRequestReview", "body", "missing_field", "")
		return
	}
	rv := f.reviewFor(rc)
	if rv == nil {
		return
	}
	if rv.User.ID != rc.actor().ID {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Only the review's author may edit it.")
		return
	}
	old := rv.Body
	rv.Body = *req.Body
	saved := *rv
	v := viewIssueLocked(rc.repo, rc.repo.Pulls[rc.number].Issue)
	rc.repo.mu.Unlock()
	if saved.State != "PENDING" {
		f.emitReviewEdited(rc.repo, saved, v, rc.actor(), old)
	}
	writeJSON(w, r, http.StatusOK, f.reviewObject(rc.repo, saved, false))
}

// deleteReview deletes the caller's pending review.
func (f *Forge) deleteReview(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rv := f.reviewFor(rc)
	if rv == nil {
		return
	}
	if rv.State != "PENDING" || rv.User.ID != rc.actor().ID {
		rc.repo.mu.Unlock()
		unprocessable(w, "Can not delete a non-pending pull request review")
		return
	}
	delete(rc.repo.Reviews, rv.ID)
	saved := *rv
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.reviewObject(rc.repo, saved, false))
}

// dismissReview dismisses an approval or a change request (write access).
func (f *Forge) dismissReview(w http.ResponseWriter, r *http.Request, rc *reqCtx, req struct {
	Message string `json:"message"`
	Event   string `json:"event"`
}) {
	if req.Message == "" {
		validationFailed(w, "PullRequestReview", "message", "missing_field", "")
		return
	}
	rv := f.reviewFor(rc)
	if rv == nil {
		return
	}
	if rv.State != "APPROVED" && rv.State != "CHANGES_REQUESTED" {
		rc.repo.mu.Unlock()
		unprocessable(w, "Can not dismiss a "+map[string]string{"COMMENTED": "commented", "PENDING": "pending",
			"DISMISSED": "dismissed"}[rv.State]+" pull request review")
		return
	}
	rv.State = "DISMISSED"
	saved := *rv
	v := viewIssueLocked(rc.repo, rc.repo.Pulls[rc.number].Issue)
	rc.repo.mu.Unlock()
	f.emitReview(rc.repo, "dismissed", saved, v, rc.actor())
	writeJSON(w, r, http.StatusOK, f.reviewObject(rc.repo, saved, false))
}
