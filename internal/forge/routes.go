package forge

import (
	"regexp"
	"sort"
	"strings"

	"github.com/gorilla/mux"
)

// Route is one REST operation the forge serves: a method and the path
// template under the API prefix, variables written "{name}" (their
// patterns left out), e.g. GET /repos/{owner}/{repo}/pulls/{number}.
type Route struct {
	Method, Path string
}

// String is "METHOD /path".
func (r Route) String() string { return r.Method + " " + r.Path }

var routeVarPattern = regexp.MustCompile(`\{([^}:]+):[^}]*\}`)

// APIRoutes lists every REST operation the forge's router serves, sorted,
// read from the router itself so that a new route shows up here: those
// under the API prefix and the uploads under /api/uploads (paths without
// their prefix).
func APIRoutes() []Route {
	var out []Route
	root, _ := (&Forge{}).Handler().(*mux.Router)
	_ = root.Walk(func(rt *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := rt.GetPathTemplate()
		if err != nil || !strings.HasPrefix(tpl, apiPrefix+"/") && !strings.HasPrefix(tpl, uploadsPrefix+"/") {
			return nil
		}
		methods, err := rt.GetMethods()
		if err != nil {
			return nil
		}
		path := routeVarPattern.ReplaceAllString(strings.TrimPrefix(strings.TrimPrefix(tpl, apiPrefix), uploadsPrefix), "{$1}")
		for _, m := range methods {
			out = append(out, Route{Method: m, Path: path})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// WebhookKind is an event (X-GitHub-Event) and its action ("" for the
// events that have none, such as push).
type WebhookKind struct {
	Event, Action string
}

// WebhookKinds are the events and actions the forge delivers. The schema
// test fails on a delivery of a kind not listed here.
var WebhookKinds = []WebhookKind{
	{"check_run", "created"}, {"check_run", "completed"}, {"check_run", "rerequested"},
	{"check_suite", "requested"}, {"check_suite", "completed"}, {"check_suite", "rerequested"},
	{"create", ""}, {"delete", ""}, {"push", ""}, {"status", ""}, {"ping", ""},
	{"deployment", "created"}, {"deployment_status", "created"},
	{"installation", "created"}, {"installation", "deleted"}, {"installation", "suspend"},
	{"installation", "unsuspend"}, {"installation", "new_permissions_accepted"},
	{"installation_repositories", "added"}, {"installation_repositories", "removed"},
	{"issue_comment", "created"}, {"issue_comment", "edited"}, {"issue_comment", "deleted"},
	{"issues", "opened"}, {"issues", "edited"}, {"issues", "closed"}, {"issues", "reopened"},
	{"pull_request", "opened"}, {"pull_request", "edited"}, {"pull_request", "closed"},
	{"pull_request", "reopened"}, {"pull_request", "synchronize"}, {"pull_request", "labeled"},
	{"pull_request", "unlabeled"}, {"pull_request", "assigned"}, {"pull_request", "unassigned"},
	{"pull_request", "review_requested"}, {"pull_request", "review_request_removed"},
	{"pull_request", "locked"}, {"pull_request", "unlocked"},
	{"pull_request_review", "submitted"}, {"pull_request_review", "edited"}, {"pull_request_review", "dismissed"},
	{"release", "created"}, {"release", "published"}, {"release", "prereleased"}, {"release", "released"},
	{"release", "edited"}, {"release", "deleted"},
}
