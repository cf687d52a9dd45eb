package openapi

import (
	"reflect"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
)

func TestOperationMatchesTemplatesByShape(t *testing.T) {
	paths := map[string]any{
		"/repos/{owner}/{repo}/pulls/{pull_number}":     map[string]any{"get": map[string]any{}, "patch": map[string]any{}},
		"/repos/{owner}/{repo}/git/ref/{ref}":           map[string]any{"get": map[string]any{}},
		"/repos/{owner}/{repo}/git/matching-refs/{ref}": map[string]any{"get": map[string]any{}},
	}
	for _, c := range []struct {
		route      forge.Route
		path, verb string
		ok         bool
	}{
		{forge.Route{Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{number}"}, "/repos/{owner}/{repo}/pulls/{pull_number}", "get", true},
		{forge.Route{Method: "PATCH", Path: "/repos/{owner}/{repo}/pulls/{number}"}, "/repos/{owner}/{repo}/pulls/{pull_number}", "patch", true},
		{forge.Route{Method: "DELETE", Path: "/repos/{owner}/{repo}/pulls/{number}"}, "", "", false},
		{forge.Route{Method: "GET", Path: "/repos/{owner}/{repo}/pulls"}, "", "", false},
		// aliases: the legacy ref read and the listing of every ref
		{forge.Route{Method: "GET", Path: "/repos/{owner}/{repo}/git/refs/{ref}"}, "/repos/{owner}/{repo}/git/ref/{ref}", "get", true},
		{forge.Route{Method: "GET", Path: "/repos/{owner}/{repo}/git/refs"}, "/repos/{owner}/{repo}/git/matching-refs/{ref}", "get", true},
	} {
		p, m, ok := Operation(paths, c.route)
		if p != c.path || m != c.verb || ok != c.ok {
			t.Errorf("Operation(%s) = %q %q %v, want %q %q %v", c.route, p, m, ok, c.path, c.verb, c.ok)
		}
	}
}

func TestWebhookKey(t *testing.T) {
	for _, c := range [][3]string{
		{"pull_request", "review_requested", "pull-request-review-requested"},
		{"installation_repositories", "added", "installation-repositories-added"},
		{"push", "", "push"},
	} {
		if got := WebhookKey(c[0], c[1]); got != c[2] {
			t.Errorf("WebhookKey(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestExtractKeepsReferencedComponentsOnly(t *testing.T) {
	doc := map[string]any{
		"openapi": "3.0.3",
		"paths": map[string]any{
			"/user": map[string]any{"get": map[string]any{"operationId": "users/get-authenticated", "parameters": []any{},
				"responses": map[string]any{"200": map[string]any{"content": map[string]any{"application/json": map[string]any{
					"schema":   map[string]any{"$ref": "#/components/schemas/private-user"},
					"examples": map[string]any{"default": map[string]any{"$ref": "#/components/examples/u"}},
				}}}}}},
			"/gists": map[string]any{"get": map[string]any{}},
		},
		"components": map[string]any{
			"schemas": map[string]any{
				"private-user": map[string]any{"description": "A user", "properties": map[string]any{
					"plan":        map[string]any{"$ref": "#/components/schemas/plan"},
					"description": map[string]any{"type": "string"}}},
				"plan": map[string]any{"type": "object"},
				"gist": map[string]any{"type": "object"},
			},
			"examples": map[string]any{"u": map[string]any{}},
		},
	}
	out, missing, err := ExtractREST(doc, []forge.Route{{Method: "GET", Path: "/user"}, {Method: "GET", Path: "/nothing"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(missing, []forge.Route{{Method: "GET", Path: "/nothing"}}) {
		t.Errorf("missing = %v", missing)
	}
	if _, ok := out["paths"].(map[string]any)["/gists"]; ok {
		t.Error("an operation the forge does not serve was kept")
	}
	schemas := out["components"].(map[string]any)["schemas"].(map[string]any)
	if _, ok := schemas["plan"]; !ok {
		t.Error("a component referenced through another was dropped")
	}
	if _, ok := schemas["gist"]; ok {
		t.Error("an unreferenced component was kept")
	}
	if _, ok := out["components"].(map[string]any)["examples"]; ok {
		t.Error("examples were kept")
	}
	user := schemas["private-user"].(map[string]any)
	if _, ok := user["description"]; ok {
		t.Error("a description keyword was kept")
	}
	if _, ok := user["properties"].(map[string]any)["description"]; !ok {
		t.Error("a property named description was dropped")
	}
}
