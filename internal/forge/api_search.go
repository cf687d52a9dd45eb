package forge

import (
	"net/http"
	"sort"

	"github.com/gorilla/mux"
)

// routesSearch serves GET /search/issues over the repositories the caller
// may read.
func (f *Forge) routesSearch(api *mux.Router) {
	api.HandleFunc("/search/issues", f.searchIssues).Methods(http.MethodGet)
}

// GitHub answers at most the first 1,000 results of a search.
const maxSearchResults = 1000

type searchHit struct {
	repo *Repo
	v    issueView
}

func (f *Forge) searchIssues(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	text := q.Get("q")
	switch {
	case text == "":
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			fieldError{Resource: "Search", Field: "q", Code: "missing"})
		return
	case len(text) > maxSearchQuery:
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
			fieldError{Resource: "Search", Field: "q", Code: "invalid", Message: "The search is longer than 256 characters."})
		return
	}
	by, order := q.Get("sort"), q.Get("order")
	if by != "" && by != "created" && by != "updated" && by != "comments" {
		validationFailed(w, "Search", "sort", "invalid", "sort must be created, updated or comments")
		return
	}
	iq := parseIssueQuery(text)
	p := caller(r)
	f.mu.RLock()
	var repos []*Repo
	for _, repo := range f.repos {
		if iq.matchesRepo(repo.FullName(), repo.Owner.Login) {
			repos = append(repos, repo)
		}
	}
	f.mu.RUnlock()
	var hits []searchHit
	for _, repo := range repos {
		if f.permission(p, repo) < PermRead {
			continue
		}
		repo.mu.Lock()
		issues := make([]*Issue, 0, len(repo.Issues))
		for _, is := range repo.Issues {
			issues = append(issues, is)
		}
		views := viewIssuesLocked(repo, issues)
		repo.mu.Unlock()
		for _, v := range views {
			if iq.matches(v) {
				hits = append(hits, searchHit{repo: repo, v: v})
			}
		}
	}
	sortSearchHits(hits, by, order)
	total := len(hits)
	if len(hits) > maxSearchResults {
		hits = hits[:maxSearchResults]
	}
	items := []map[string]any{}
	for _, h := range paginate(w, r, f.BaseURL(), hits) {
		obj := jsonObjectOf(f.issueObject(h.repo, h.v))
		obj["score"] = 1.0
		items = append(items, obj)
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"total_count": total, "incomplete_results": false, "items": items,
		"search_type": "lexical"})
}

// sortSearchHits orders hits by created (also for best match), updated or
// comments; descending unless order=asc. Ties fall to the newer issue.
func sortSearchHits(hits []searchHit, by, order string) {
	key := func(h searchHit) int64 {
		switch by {
		case "updated":
			return h.v.Issue.UpdatedAt.UnixNano()
		case "comments":
			return int64(h.v.Comments)
		}
		return h.v.Issue.CreatedAt.UnixNano()
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if order == "asc" {
			a, b = b, a
		}
		if ka, kb := key(a), key(b); ka != kb {
			return ka > kb
		}
		return a.v.Issue.ID > b.v.Issue.ID
	})
}
