package forge

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesReviewComments serves pull request review comments: list (of a
// pull request or of the repository), get, and create on a line of the
// diff or as a reply. Registered before the pulls routes, whose
// pulls/{number} would read "comments" as a number.
func (f *Forge) routesReviewComments(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/pulls/comments", f.repoHandler(PermRead, f.listRepoReviewComments)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/comments/{id}", f.repoHandler(PermRead, f.getReviewComment)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/comments", f.repoHandler(PermRead, onPull(f.listPullReviewComments))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/comments", f.repoHandler(PermRead, onPull(signedIn(withBody(f.createReviewComment))))).Methods(http.MethodPost)
}

// maxCommentBody is GitHub's limit on a comment's body.
const maxReviewCommentBody = 65536

type reviewCommentRequest struct {
	Body      string `json:"body"`
	CommitID  string `json:"commit_id"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Side      string `json:"side"`
	InReplyTo int64  `json:"in_reply_to"`
}

func (f *Forge) reviewCommentObject(repo *Repo, c ReviewComment) map[string]any {
	api, web := f.repoURLs(repo)
	self := fmt.Sprintf("%s/pulls/comments/%d", api, c.ID)
	obj := jsonObjectOf(&github.PullRequestComment{
		ID: github.Int64(c.ID), NodeID: github.String(nodeID("PullRequestReviewComment", c.ID)),
		PullRequestReviewID: github.Int64(c.ReviewID), DiffHunk: github.String(c.DiffHunk), Path: github.String(c.Path),
		Position: github.Int(c.Position), OriginalPosition: github.Int(c.Position),
		CommitID: github.String(c.CommitID), OriginalCommitID: github.String(c.CommitID),
		User: f.userObject(c.User), Body: github.String(c.Body),
		CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),
		AuthorAssociation: github.String(f.authorAssociation(repo, c.User)),
		URL:               github.String(self), HTMLURL: github.String(fmt.Sprintf("%s/pull/%d#discussion_r%d", web, c.PullNum, c.ID)),
		PullRequestURL: github.String(fmt.Sprintf("%s/pulls/%d", api, c.PullNum)),
		Side:           github.String(c.Side), Line: github.Int(c.Line), OriginalLine: github.Int(c.Line),
		Reactions: reactionsObject(self+"/reactions", nil),
	})
	obj["subject_type"] = "line"
	obj["start_line"], obj["original_start_line"], obj["start_side"] = nil, nil, nil
	obj["_links"] = map[string]any{"self": map[string]string{"href": self},
		"html":         map[string]string{"href": fmt.Sprintf("%s/pull/%d#discussion_r%d", web, c.PullNum, c.ID)},
		"pull_request": map[string]string{"href": fmt.Sprintf("%s/pulls/%d", api, c.PullNum)}}
	if c.InReplyTo != 0 {
		obj["in_reply_to_id"] = c.InReplyTo
	}
	return obj
}

// answerReviewComments lists the comments keep admits, oldest first
// (sort=created|updated, direction), paginated.
func (f *Forge) answerReviewComments(w http.ResponseWriter, r *http.Request, repo *Repo, keep func(*ReviewComment) bool) {
	q := r.URL.Query()
	repo.mu.Lock()
	var cs []ReviewComment
	for _, c := range repo.ReviewComments {
		if keep(c) {
			cs = append(cs, *c)
		}
	}
	repo.mu.Unlock()
	desc := q.Get("direction") == "desc"
	byUpdated := q.Get("sort") == "updated"
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if desc {
			a, b = b, a
		}
		if byUpdated && !a.UpdatedAt.Equal(b.UpdatedAt) {
			return a.UpdatedAt.Before(b.UpdatedAt)
		}
		return a.ID < b.ID
	})
	out := []map[string]any{}
	for _, c := range paginate(w, r, f.BaseURL(), cs) {
		out = append(out, f.reviewCommentObject(repo, c))
	}
	writeJSON(w, r, http.StatusOK, out)
}

func (f *Forge) listRepoReviewComments(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	f.answerReviewComments(w, r, rc.repo, func(*ReviewComment) bool { return true })
}

func (f *Forge) listPullReviewComments(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	f.answerReviewComments(w, r, rc.repo, func(c *ReviewComment) bool { return c.PullNum == rc.number })
}

func (f *Forge) getReviewComment(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	id, ok := rc.intVar("id")
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	c, found := rc.repo.ReviewComments[id]
	var cp ReviewComment
	if found {
		cp = *c
	}
	rc.repo.mu.Unlock()
	if !found {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.reviewCommentObject(rc.repo, cp))
}

// createReviewComment comments on a line of the pull request's diff (or
// replies to a top-level comment), in a review of its own, as GitHub does.
func (f *Forge) createReviewComment(w http.ResponseWriter, r *http.Request, rc *reqCtx, req reviewCommentRequest) {
	if strings.TrimSpace(req.Body) == "" || len(req.Body) > maxReviewCommentBody {
		validationFailed(w, "PullRequestReviewComment", "body", "missing_field", "body is required (at most 65536 characters)")
		return
	}
	now := f.now()
	c := &ReviewComment{ID: f.newID(), PullNum: rc.number, Body: req.Body, User: rc.actor(), CreatedAt: now, UpdatedAt: now}
	if req.InReplyTo != 0 {
		rc.repo.mu.Lock()
		parent, found := rc.repo.ReviewComments[req.InReplyTo]
		if found && parent.PullNum == rc.number {
			c.Path, c.CommitID, c.Line, c.Side, c.Position, c.DiffHunk = parent.Path, parent.CommitID, parent.Line, parent.Side, parent.Position, parent.DiffHunk
			c.InReplyTo = parent.ID
			if parent.InReplyTo != 0 {
				c.InReplyTo = parent.InReplyTo
			}
		}
		rc.repo.mu.Unlock()
		if !found || c.Path == "" {
			notFound(w)
			return
		}
	} else if !f.placeReviewComment(w, rc.repo, rc.number, c, req) {
		return
	}
	rc.repo.mu.Lock()
	if rc.repo.ReviewComments == nil {
		rc.repo.ReviewComments = map[int64]*ReviewComment{}
	}
	rv := &Review{ID: f.newID(), PullNum: rc.number, User: rc.actor(), State: "COMMENTED", CommitID: c.CommitID, SubmittedAt: now}
	rc.repo.Reviews[rv.ID] = rv
	c.ReviewID = rv.ID
	rc.repo.ReviewComments[c.ID] = c
	out := *c
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusCreated, f.reviewCommentObject(rc.repo, out))
}

// placeReviewComment checks that the comment's commit, path and line are
// in the pull request's diff and fills in its position and hunk; it
// answers 422 as GitHub does and returns false when they are not.
func (f *Forge) placeReviewComment(w http.ResponseWriter, repo *Repo, n int, c *ReviewComment, req reviewCommentRequest) bool {
	v := viewPull(repo, n)
	if req.CommitID == "" || req.Path == "" {
		validationFailed(w, "PullRequestReviewComment", "commit_id", "missing_field", "commit_id and path are required")
		return false
	}
	commit, found := f.peelRefToCommit(repo, req.CommitID)
	if !found || commit != req.CommitID {
		validationFailed(w, "PullRequestReviewComment", "commit_id", "invalid", "commit_id is not part of the pull request")
		return false
	}
	side := req.Side
	if side == "" {
		side = "RIGHT"
	}
	if side != "LEFT" && side != "RIGHT" {
		validationFailed(w, "PullRequestReviewComment", "side", "invalid", "side must be LEFT or RIGHT")
		return false
	}
	mb, err := f.git.mergeBase(repo.Path, v.Pull.BaseSHA, commit)
	if err != nil || mb == "" {
		validationFailed(w, "PullRequestReviewComment", "commit_id", "invalid", "commit_id is not part of the pull request")
		return false
	}
	files, err := f.git.diffFiles(repo.Path, mb, commit, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return false
	}
	for _, d := range files {
		if d.path != req.Path {
			continue
		}
		var pos int
		var hunk string
		var ok bool
		if req.Line > 0 {
			pos, hunk, ok = diffPosition(d.patch, req.Line, side)
		}
		if !ok {
			unprocessable(w, "pull_request_review_thread.line must be part of the diff")
			return false
		}
		c.Path, c.CommitID, c.Line, c.Side, c.Position, c.DiffHunk = req.Path, commit, req.Line, side, pos, hunk
		return true
	}
	unprocessable(w, "pull_request_review_thread.path diff too large or path not found in the diff")
	return false
}
