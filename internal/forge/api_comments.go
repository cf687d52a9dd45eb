package forge

import (
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesComments serves issue (and pull request conversation) comments:
// create (read access), list an issue's (since, paginated), get, edit and
// delete (the author or writers). They send issue_comment webhooks. The
// repository-wide list (GET /issues/comments) is routed by routesIssues.
func (f *Forge) routesComments(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/comments", f.repoHandler(PermRead, onIssue(f.listIssueComments))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/comments", f.repoHandler(PermRead, onIssue(signedIn(withBody(f.createComment))))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/issues/comments/{comment_id}", f.repoHandler(PermRead, f.getComment)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/comments/{comment_id}", f.repoHandler(PermRead, signedIn(withBody(f.editComment)))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/issues/comments/{comment_id}", f.repoHandler(PermRead, signedIn(f.deleteComment))).Methods(http.MethodDelete)
}

type commentRequest struct {
	Body *string `json:"body"`
}

func (f *Forge) createComment(w http.ResponseWriter, r *http.Request, rc *reqCtx, req commentRequest) {
	if req.Body == nil || strings.TrimSpace(*req.Body) == "" {
		validationFailed(w, "IssueComment", "body", "missing_field", "")
		return
	}
	perm := rc.perm
	now := f.now()
	rc.repo.mu.Lock()
	is := rc.repo.Issues[rc.number]
	if is.Locked && perm < PermWrite {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Unable to create comment because issue is locked.")
		return
	}
	c := &Comment{ID: f.newID(), IssueNum: rc.number, Body: *req.Body, User: rc.actor(), CreatedAt: now, UpdatedAt: now}
	rc.repo.Comments[c.ID] = c
	is.UpdatedAt = now
	cv := viewCommentsLocked(rc.repo, []*Comment{c})[0]
	iv := viewIssueLocked(rc.repo, is)
	rc.repo.mu.Unlock()
	f.emitComment(rc.repo, "created", cv, iv, rc.actor(), nil)
	obj := f.commentObject(rc.repo, cv)
	w.Header().Set("Location", obj.GetURL())
	writeJSON(w, r, http.StatusCreated, obj)
}

// listIssueComments lists an issue's comments, oldest first; since keeps
// those updated at or after it.
func (f *Forge) listIssueComments(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	f.writeComments(w, r, rc.repo, func(c *Comment) bool { return c.IssueNum == rc.number })
}

// listRepoComments lists every issue comment of a repository.
func (f *Forge) listRepoComments(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	f.writeComments(w, r, rc.repo, func(*Comment) bool { return true })
}

func (f *Forge) writeComments(w http.ResponseWriter, r *http.Request, repo *Repo, keep func(*Comment) bool) {
	q := r.URL.Query()
	since, ok := parseSince(w, q.Get("since"))
	if !ok {
		return
	}
	repo.mu.Lock()
	var cs []*Comment
	for _, c := range repo.Comments {
		if keep(c) && (since.IsZero() || !c.UpdatedAt.Before(since)) {
			cs = append(cs, c)
		}
	}
	views := viewCommentsLocked(repo, cs)
	repo.mu.Unlock()
	if q.Get("sort") == "updated" {
		sort.SliceStable(views, func(i, j int) bool { return views[i].Comment.UpdatedAt.Before(views[j].Comment.UpdatedAt) })
	}
	if q.Get("direction") == "desc" {
		for i, j := 0, len(views)-1; i < j; i, j = i+1, j-1 {
			views[i], views[j] = views[j], views[i]
		}
	}
	page := paginate(w, r, f.BaseURL(), views)
	out := make([]*github.IssueComment, 0, len(page))
	for _, v := range page {
		out = append(out, f.commentObject(repo, v))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// commentFor finds comment {comment_id} and returns it with repo.mu held;
// 404 (and nil) when there is none.
func (f *Forge) commentFor(rc *reqCtx) *Comment {
	id, ok := rc.intVar("comment_id")
	if !ok {
		return nil
	}
	rc.repo.mu.Lock()
	c := rc.repo.Comments[id]
	if c == nil {
		rc.repo.mu.Unlock()
		notFound(rc.w)
		return nil
	}
	return c
}

func (f *Forge) getComment(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	c := f.commentFor(rc)
	if c == nil {
		return
	}
	v := viewCommentsLocked(rc.repo, []*Comment{c})[0]
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.commentObject(rc.repo, v))
}

// editComment changes a comment's body: its author or writers.
func (f *Forge) editComment(w http.ResponseWriter, r *http.Request, rc *reqCtx, req commentRequest) {
	if req.Body == nil || strings.TrimSpace(*req.Body) == "" {
		validationFailed(w, "IssueComment", "body", "missing_field", "")
		return
	}
	perm := rc.perm
	c := f.commentFor(rc)
	if c == nil {
		return
	}
	if c.User.ID != rc.actor().ID && perm < PermWrite {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have write access to edit others' comments.")
		return
	}
	old := c.Body
	changed := old != *req.Body
	if changed {
		c.Body = *req.Body
		c.UpdatedAt = f.now()
	}
	cv := viewCommentsLocked(rc.repo, []*Comment{c})[0]
	iv := viewIssueLocked(rc.repo, rc.repo.Issues[c.IssueNum])
	rc.repo.mu.Unlock()
	if changed {
		f.emitComment(rc.repo, "edited", cv, iv, rc.actor(), &old)
	}
	writeJSON(w, r, http.StatusOK, f.commentObject(rc.repo, cv))
}

// deleteComment deletes a comment (its author or writers) and its
// reactions; 204.
func (f *Forge) deleteComment(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	perm := rc.perm
	c := f.commentFor(rc)
	if c == nil {
		return
	}
	if c.User.ID != rc.actor().ID && perm < PermWrite {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have write access to delete others' comments.")
		return
	}
	cv := viewCommentsLocked(rc.repo, []*Comment{c})[0]
	delete(rc.repo.Comments, c.ID)
	for id, re := range rc.repo.Reactions {
		if re.SubjectKind == "comment" && re.SubjectID == c.ID {
			delete(rc.repo.Reactions, id)
		}
	}
	iv := viewIssueLocked(rc.repo, rc.repo.Issues[c.IssueNum])
	rc.repo.mu.Unlock()
	f.emitComment(rc.repo, "deleted", cv, iv, rc.actor(), nil)
	noContent(w)
}
