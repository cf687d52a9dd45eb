package forge

import (
	"net/http"
	"sort"

	"github.com/gorilla/mux"
)

// routesReactions serves reactions to issue comments and to issues (pull
// requests included): create (201, or 200 when the caller already reacted
// so), list (content filter, paginated), delete one's own. Read access.
func (f *Forge) routesReactions(api *mux.Router) {
	const comment = "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"
	const issue = "/repos/{owner}/{repo}/issues/{number}/reactions"
	api.HandleFunc(comment, f.reactionsHandler("comment", f.listReactions)).Methods(http.MethodGet)
	api.HandleFunc(comment, f.reactionsHandler("comment", f.createReaction)).Methods(http.MethodPost)
	api.HandleFunc(comment+"/{reaction_id}", f.reactionsHandler("comment", f.deleteReaction)).Methods(http.MethodDelete)
	api.HandleFunc(issue, f.reactionsHandler("issue", f.listReactions)).Methods(http.MethodGet)
	api.HandleFunc(issue, f.reactionsHandler("issue", f.createReaction)).Methods(http.MethodPost)
	api.HandleFunc(issue+"/{reaction_id}", f.reactionsHandler("issue", f.deleteReaction)).Methods(http.MethodDelete)
}

// reactionSubject is what reactions are to: a comment id or an issue
// number, in the call on its repository.
type reactionSubject struct {
	*reqCtx
	kind string
	id   int64
}

// reactionsHandler resolves the subject (404 when it does not exist or
// the caller may not see it) and calls h.
func (f *Forge) reactionsHandler(kind string, h func(http.ResponseWriter, *http.Request, reactionSubject)) http.HandlerFunc {
	return f.repoHandler(PermRead, func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		varName := "number"
		if kind == "comment" {
			varName = "comment_id"
		}
		id, ok := rc.intVar(varName)
		if !ok {
			return
		}
		rc.repo.mu.Lock()
		exists := false
		if kind == "comment" {
			exists = rc.repo.Comments[id] != nil
		} else {
			exists = rc.repo.Issues[int(id)] != nil
		}
		rc.repo.mu.Unlock()
		if !exists {
			notFound(w)
			return
		}
		h(w, r, reactionSubject{reqCtx: rc, kind: kind, id: id})
	})
}

// reactionRequest is the body of POST .../reactions.
type reactionRequest struct {
	Content string `json:"content"`
}

func (f *Forge) createReaction(w http.ResponseWriter, r *http.Request, s reactionSubject) {
	who, ok := s.requireActor()
	if !ok {
		return
	}
	req, ok := decode[reactionRequest](s.reqCtx)
	if !ok {
		return
	}
	if !validReaction(req.Content) {
		validationFailed(w, "Reaction", "content", "invalid", "content must be one of +1, -1, laugh, confused, heart, hooray, rocket, eyes")
		return
	}
	repo := s.repo
	repo.mu.Lock()
	for _, re := range repo.Reactions {
		if re.SubjectKind == s.kind && re.SubjectID == s.id && re.User.ID == who.ID && re.Content == req.Content {
			saved := *re
			repo.mu.Unlock()
			writeJSON(w, r, http.StatusOK, f.reactionObject(saved))
			return
		}
	}
	re := &Reaction{ID: f.newID(), SubjectKind: s.kind, SubjectID: s.id, User: who, Content: req.Content, CreatedAt: f.now()}
	repo.Reactions[re.ID] = re
	saved := *re
	repo.mu.Unlock()
	writeJSON(w, r, http.StatusCreated, f.reactionObject(saved))
}

func (f *Forge) listReactions(w http.ResponseWriter, r *http.Request, s reactionSubject) {
	content := r.URL.Query().Get("content")
	repo := s.repo
	repo.mu.Lock()
	var list []Reaction
	for _, re := range repo.Reactions {
		if re.SubjectKind == s.kind && re.SubjectID == s.id && (content == "" || re.Content == content) {
			list = append(list, *re)
		}
	}
	repo.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	page := paginate(w, r, f.BaseURL(), list)
	out := make([]*reactionJSON, 0, len(page))
	for _, re := range page {
		out = append(out, f.reactionObject(re))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// deleteReaction deletes the caller's reaction (admins any); 204.
func (f *Forge) deleteReaction(w http.ResponseWriter, r *http.Request, s reactionSubject) {
	who, ok := s.requireActor()
	if !ok {
		return
	}
	id, ok := s.intVar("reaction_id")
	if !ok {
		return
	}
	admin := s.perm >= PermAdmin
	repo := s.repo
	repo.mu.Lock()
	re := repo.Reactions[id]
	if re == nil || re.SubjectKind != s.kind || re.SubjectID != s.id {
		repo.mu.Unlock()
		notFound(w)
		return
	}
	if re.User.ID != who.ID && !admin {
		repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must be the reaction's author to delete it.")
		return
	}
	delete(repo.Reactions, id)
	repo.mu.Unlock()
	noContent(w)
}
