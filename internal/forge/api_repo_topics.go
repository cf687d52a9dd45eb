package forge

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"
)

// Repository topics, as GitHub serves them: GET and PUT
// /repos/{owner}/{repo}/topics with {"names": [...]}. Replacing them needs
// admin access. GitHub's rules apply: at most 20 topics, each lowercase
// letters, digits and hyphens, starting with a letter or digit, at most 50
// characters; duplicates are folded.
func (f *Forge) routesRepoTopics(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/topics", f.repoHandler(PermRead, f.getTopics)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/topics", f.repoHandler(PermAdmin, withBody(f.replaceTopics))).Methods(http.MethodPut)
}

const (
	maxTopics      = 20
	maxTopicLength = 50
)

type topicsJSON struct {
	Names []string `json:"names"`
}

func (f *Forge) getTopics(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	names := append([]string{}, rc.repo.Topics...)
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, topicsJSON{Names: names})
}

func (f *Forge) replaceTopics(w http.ResponseWriter, r *http.Request, rc *reqCtx, req struct {
	Names *[]string `json:"names"`
}) {
	if req.Names == nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"names\" wasn't supplied.",
			fieldError{Resource: "Repository", Field: "names", Code: "missing_field"})
		return
	}
	var names []string
	for _, n := range *req.Names {
		n = strings.ToLower(strings.TrimSpace(n))
		if !validTopic(n) {
			writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
				fieldError{Resource: "Repository", Field: "topics", Code: "invalid",
					Message: "Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens."})
			return
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > maxTopics {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			fieldError{Resource: "Repository", Field: "topics", Code: "invalid", Message: "A repository cannot have more than 20 topics."})
		return
	}
	rc.repo.mu.Lock()
	rc.repo.Topics = names
	rc.repo.UpdatedAt = f.now()
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, topicsJSON{Names: append([]string{}, names...)})
}

func validTopic(s string) bool {
	if s == "" || len(s) > maxTopicLength || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
