// Package openapi maps the forge's routes and webhooks onto GitHub's
// published OpenAPI descriptions (@octokit/openapi for REST,
// @octokit/openapi-webhooks for webhook payloads) and extracts from them
// the part the forge answers for: the operations it serves, the webhook
// events it sends, and the components those reference.
package openapi

import (
	"regexp"
	"strings"

	"github.com/porchbot/porchbot/internal/forge"
)

// Descriptions are the GitHub products the forge is checked against, as
// named by the packages' generated/<name>.json files.
var Descriptions = []string{"api.github.com", "ghes-3.17"}

// aliases are forge routes that GitHub serves and its description does
// not list under that path; each answers as the operation it names.
var aliases = map[forge.Route]forge.Route{
	// The legacy single-ref read (go-github's GetRef used it) answers as
	// GET /git/ref/{ref}.
	{Method: "GET", Path: "/repos/{owner}/{repo}/git/refs/{ref}"}: {Method: "GET", Path: "/repos/{owner}/{repo}/git/ref/{ref}"},
	// The undocumented listing of every ref answers as matching-refs
	// with an empty prefix.
	{Method: "GET", Path: "/repos/{owner}/{repo}/git/refs"}: {Method: "GET", Path: "/repos/{owner}/{repo}/git/matching-refs/{ref}"},
	// The root of contents is the contents of path "".
	{Method: "GET", Path: "/repos/{owner}/{repo}/contents"}: {Method: "GET", Path: "/repos/{owner}/{repo}/contents/{path}"},
}

var varPattern = regexp.MustCompile(`\{[^}]*\}`)

// shape is a path template with its variables' names dropped, so that
// /pulls/{number} and /pulls/{pull_number} compare equal.
func shape(path string) string { return varPattern.ReplaceAllString(path, "{}") }

// Operation finds, among a description's paths, the operation that
// answers for a forge route: it returns the description's path template
// and the lower-case method, or ok false.
func Operation(paths map[string]any, r forge.Route) (path, method string, ok bool) {
	if a, found := aliases[r]; found {
		r = a
	}
	method = strings.ToLower(r.Method)
	want := shape(r.Path)
	for p, v := range paths {
		if shape(p) != want {
			continue
		}
		if ops, _ := v.(map[string]any); ops[method] != nil {
			return p, method, true
		}
	}
	return "", "", false
}

// WebhookKey is the description's key of an event and action, e.g.
// pull_request + review_requested → "pull-request-review-requested"; an
// event without actions is its own key ("push").
func WebhookKey(event, action string) string {
	k := strings.ReplaceAll(event, "_", "-")
	if action != "" {
		k += "-" + strings.ReplaceAll(action, "_", "-")
	}
	return k
}
