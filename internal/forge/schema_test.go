package forge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/mux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/forge/openapi"
)

// schemaDir holds the extract of GitHub's OpenAPI descriptions the forge
// is checked against (testdata/github-openapi/README.md says how it is
// made).
const schemaDir = "../../testdata/github-openapi"

// ---------------------------------------------------------------------
// GitHub's descriptions as JSON Schema.

// description is one product's REST and webhook descriptions, compiled
// on demand.
type description struct {
	name  string
	rest  map[string]any
	hooks map[string]any
	c     *jsonschema.Compiler
	mu    sync.Mutex
	cache map[string]*jsonschema.Schema
}

const (
	restURL   = "https://forge.invalid/rest.json"
	hooksURL  = "https://forge.invalid/webhooks.json"
	errataURL = "https://forge.invalid/errata.json"
)

// errataSchemas stand in for the description's own where it is wrong
// (schemaErrata); they are built from its components.
var errataSchemas = map[string]any{"$defs": map[string]any{
	"installations": map[string]any{"type": "array", "items": map[string]any{"$ref": restURL + "#/components/schemas/installation"}},
}}

func loadDescription(t *testing.T, name string) *description {
	t.Helper()
	d := &description{name: name, c: jsonschema.NewCompiler(), cache: map[string]*jsonschema.Schema{}}
	d.c.DefaultDraft(jsonschema.Draft2020)
	d.c.AssertFormat() // uri, date-time, email... are checked too
	d.c.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: validURITemplate})
	d.rest = readDescription(t, filepath.Join(schemaDir, "rest", name+".json"))
	d.hooks = readDescription(t, filepath.Join(schemaDir, "webhooks", name+".json"))
	if err := d.c.AddResource(restURL, d.rest); err != nil {
		t.Fatal(err)
	}
	if err := d.c.AddResource(hooksURL, d.hooks); err != nil {
		t.Fatal(err)
	}
	if err := d.c.AddResource(errataURL, errataSchemas); err != nil {
		t.Fatal(err)
	}
	return d
}

// readDescription reads an OpenAPI document as JSON Schema 2020-12:
// OpenAPI 3.0's "nullable: true" (the REST description) becomes a null
// alternative; 3.1 (the webhooks) already says null in "type".
func readDescription(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object", path)
	}
	if s, _ := doc["openapi"].(string); strings.HasPrefix(s, "3.0.") {
		return nullableToNull(doc, false).(map[string]any)
	}
	return doc
}

// nullableToNull rewrites OpenAPI 3.0 "nullable: true" schemas as
// {"anyOf": [{"type": "null"}, <the schema>]}. names is true inside a
// "properties" object, whose keys are property names, not keywords.
func nullableToNull(v any, names bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = nullableToNull(x, !names && k == "properties")
		}
		if n, _ := out["nullable"].(bool); !names && n {
			delete(out, "nullable")
			return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, out}}
		}
		if !names {
			delete(out, "nullable")
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = nullableToNull(x, false)
		}
		return out
	}
	return v
}

// validURITemplate checks an RFC 6570 template's expressions are closed
// and not nested. (The library's own check splits the template at "/"
// first, so it refuses GitHub's own ".../following{/other_user}".)
func validURITemplate(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	open := false
	for _, ch := range s {
		switch {
		case ch == '{' && open, ch == '}' && !open:
			return fmt.Errorf("unbalanced braces in %q", s)
		case ch == '{', ch == '}':
			open = !open
		}
	}
	if open {
		return fmt.Errorf("unclosed expression in %q", s)
	}
	return nil
}

func (d *description) schema(loc string) (*jsonschema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.cache[loc]; ok {
		return s, nil
	}
	s, err := d.c.Compile(loc)
	if err != nil {
		return nil, err
	}
	d.cache[loc] = s
	return s, nil
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// responseSchema finds the schema of a route's answer with a status: its
// location, or "" when GitHub documents that answer without a body. An
// answer GitHub does not document for the operation is an error.
func (d *description) responseSchema(r forge.Route, status int) (string, error) {
	paths, _ := d.rest["paths"].(map[string]any)
	p, m, ok := openapi.Operation(paths, r)
	if !ok {
		return "", fmt.Errorf("%s has no operation for %s (regenerate %s)", d.name, r, schemaDir)
	}
	op := paths[p].(map[string]any)[m].(map[string]any)
	responses, _ := op["responses"].(map[string]any)
	code := strconv.Itoa(status)
	if alt, ok := schemaErrata[fmt.Sprintf("%s %d", r, status)]; ok {
		return alt.schema, nil
	}
	resp, ok := responses[code].(map[string]any)
	if !ok && status == http.StatusNotModified && m == "get" {
		// GitHub answers any conditional GET so ("Use conditional requests"
		// in its REST guide); the description lists 304 on a few only.
		return "", nil
	}
	if !ok {
		return "", fmt.Errorf("%s documents no %d answer to %s %s", d.name, status, strings.ToUpper(m), p)
	}
	loc := "#/paths/" + pointerEscape(p) + "/" + m + "/responses/" + code
	if ref, ok := resp["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/responses/")
		comps, _ := d.rest["components"].(map[string]any)
		resps, _ := comps["responses"].(map[string]any)
		resp, _ = resps[name].(map[string]any)
		loc = ref
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if status >= 400 {
			// GitHub's error answers carry its error body even where the
			// description lists none (a 404 of "check if merged").
			return restURL + "#/components/schemas/basic-error", nil
		}
		return "", nil
	}
	mt := "application/json"
	if _, ok := content[mt]; !ok {
		for k := range content {
			mt = k
			break
		}
	}
	return restURL + loc + "/content/" + pointerEscape(mt) + "/schema", nil
}

// validate checks a JSON body against the schema at loc; the error lists
// each failing place of the body.
func (d *description) validate(loc string, body []byte) error {
	s, err := d.schema(loc)
	if err != nil {
		return fmt.Errorf("compile %s: %w", loc, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	// The first line names the schema; the rest is the tree of failures.
	lines := strings.Split(ve.Error(), "\n")[1:]
	if len(lines) > 40 {
		lines = append(lines[:40], fmt.Sprintf("... and %d lines more", len(lines)-40))
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}

// ---------------------------------------------------------------------
// Recording every REST exchange.

type exchange struct {
	method, path string
	status       int
	body         []byte
}

type exchangeLog struct {
	mu  sync.Mutex
	all []exchange
}

type recordingTransport struct {
	log  *exchangeLog
	next http.RoundTripper
}

func (rt recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rt.log.mu.Lock()
	rt.log.all = append(rt.log.all, exchange{method: req.Method, path: req.URL.EscapedPath(), status: resp.StatusCode, body: body})
	rt.log.mu.Unlock()
	return resp, nil
}

// ---------------------------------------------------------------------
// The driver: raw REST calls, each expecting a status.

type schemaDriver struct {
	t      *testing.T
	api    string // .../api/v3
	client *http.Client
	errs   []string
}

// do calls the API as token and returns the decoded answer (nil when
// empty); a status other than want is recorded as a scenario failure.
func (d *schemaDriver) do(token, method, path string, body any, want int) any {
	d.t.Helper()
	v, _ := d.call(token, method, path, body, want, nil)
	return v
}

// revalidate reads path twice, the second time with the first answer's
// ETag in If-None-Match: GitHub answers 304 with no body.
func (d *schemaDriver) revalidate(token, path string) {
	d.t.Helper()
	_, h := d.call(token, http.MethodGet, path, nil, http.StatusOK, nil)
	etag := h.Get("ETag")
	if etag == "" {
		d.errs = append(d.errs, "GET "+path+": no ETag")
		return
	}
	d.call(token, http.MethodGet, path, nil, http.StatusNotModified, http.Header{"If-None-Match": {etag}})
}

func (d *schemaDriver) call(token, method, path string, body any, want int, extra http.Header) (any, http.Header) {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			d.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.api+path, rd)
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range extra {
		req.Header[k] = vs
	}
	resp, err := d.client.Do(req)
	if err != nil {
		d.errs = append(d.errs, fmt.Sprintf("%s %s: %v", method, path, err))
		return nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		d.errs = append(d.errs, fmt.Sprintf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, trim(b)))
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, resp.Header
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		d.errs = append(d.errs, fmt.Sprintf("%s %s: not JSON: %s", method, path, trim(b)))
	}
	return v, resp.Header
}

func trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// field reads a dotted path ("commit.tree.sha", "0.id") of a decoded
// answer as a string ("" when absent).
var field = forge.WebField

// ---------------------------------------------------------------------
// The test.

// TestForgeMatchesGitHubDescriptions drives every route the forge serves
// and validates every answer, and every webhook it sends, against
// GitHub's published descriptions of api.github.com and GHES 3.17.
func TestForgeMatchesGitHubDescriptions(t *testing.T) {
	descs := make([]*description, 0, len(openapi.Descriptions))
	for _, n := range openapi.Descriptions {
		descs = append(descs, loadDescription(t, n))
	}
	env, log, hooks := driveRound(t)

	// Every route has been called.
	router, ok := env.Forge.Handler().(*mux.Router)
	if !ok {
		t.Fatal("the forge's handler is not a mux router")
	}
	called := map[forge.Route]int{}
	type routed struct {
		route forge.Route
		ex    exchange
	}
	var answers []routed
	for _, ex := range log.all {
		r, ok := routeOf(router, ex)
		if !ok {
			t.Errorf("%s %s: no route", ex.method, ex.path)
			continue
		}
		called[r]++
		answers = append(answers, routed{r, ex})
	}
	var uncalled []string
	for _, r := range forge.APIRoutes() {
		if called[r] == 0 {
			uncalled = append(uncalled, r.String())
		}
	}
	if len(uncalled) > 0 {
		t.Errorf("%d routes have no request in this test (add one to driveEveryRoute):\n  %s",
			len(uncalled), strings.Join(uncalled, "\n  "))
	}

	// Every webhook kind the forge sends has been sent.
	kinds := map[forge.WebhookKind]bool{}
	for _, k := range forge.WebhookKinds {
		kinds[k] = true
	}
	deliveries := hooks.all()
	sent := map[forge.WebhookKind]int{}
	for _, dl := range deliveries {
		k := forge.WebhookKind{Event: dl.event, Action: dl.action}
		if !kinds[k] {
			t.Errorf("the forge sent %s %s, not in forge.WebhookKinds (add it and regenerate %s)", dl.event, dl.action, schemaDir)
		}
		sent[k]++
	}
	var unsent []string
	for _, k := range forge.WebhookKinds {
		if sent[k] == 0 {
			unsent = append(unsent, openapi.WebhookKey(k.Event, k.Action))
		}
	}
	if len(unsent) > 0 {
		t.Errorf("%d webhook kinds were not sent by this test (add a step to driveEveryRoute):\n  %s",
			len(unsent), strings.Join(unsent, "\n  "))
	}

	var summary []string
	for _, desc := range descs {
		restOK, hookOK := 0, 0
		failures := map[string][]string{}
		for _, a := range answers {
			loc, err := desc.responseSchema(a.route, a.ex.status)
			if err == nil {
				if loc == "" {
					if len(bytes.TrimSpace(a.ex.body)) > 0 {
						err = fmt.Errorf("GitHub answers %d without a body; the forge sent %s", a.ex.status, trim(a.ex.body))
					}
				} else {
					err = desc.validate(loc, a.ex.body)
				}
			}
			if err == nil {
				err = unescapedURLs(a.ex.body)
			}
			if err != nil {
				key := fmt.Sprintf("%s %d", a.route, a.ex.status)
				if dir := os.Getenv("SCHEMA_DUMP"); dir != "" {
					_ = os.WriteFile(filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(key)+".json"), a.ex.body, 0o644)
				}
				failures[key] = append(failures[key], err.Error())
				continue
			}
			restOK++
		}
		for _, dl := range deliveries {
			key := openapi.WebhookKey(dl.event, dl.action)
			err := desc.validate(hooksURL+"#/webhooks/"+pointerEscape(key)+"/post/requestBody/content/application~1json/schema", dl.body)
			if err == nil {
				err = unescapedURLs(dl.body)
			}
			if err != nil {
				failures["webhook "+key] = append(failures["webhook "+key], err.Error())
				continue
			}
			hookOK++
		}
		keys := make([]string, 0, len(failures))
		for k := range failures {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Errorf("%s: %s (%d times), first:\n      %s", desc.name, k, len(failures[k]), failures[k][0])
		}
		summary = append(summary, fmt.Sprintf("%s: %d of %d REST answers (%d routes) and %d of %d webhook deliveries (%d kinds) validate",
			desc.name, restOK, len(answers), len(called), hookOK, len(deliveries), len(sent)))
	}
	t.Logf("schema summary:\n  %s", strings.Join(summary, "\n  "))
}

// schemaErrata are answers whose operation's schema in GitHub's
// description is wrong; each is checked against the schema named instead.
var schemaErrata = map[string]struct{ schema, why string }{
	"GET /app/installations 200": {errataURL + "#/$defs/installations",
		"the operation inlines the installation with account allOf [simple-user, enterprise] (both at once), " +
			"where the installation component (GET /app/installations/{id}) says anyOf"},
}

// unescapedURLs finds links ("url", "*_url", "href" members) whose path
// holds a character a URI must escape, such as the brackets of
// "porchbot[bot]" (GitHub sends /users/porchbot%5Bbot%5D). The format
// check leaves these to the parser, which accepts them.
func unescapedURLs(body []byte) error {
	var doc any
	if len(bytes.TrimSpace(body)) == 0 || json.Unmarshal(body, &doc) != nil {
		return nil
	}
	var bad []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				walk(k, x)
			}
		case []any:
			for _, x := range t {
				walk(key, x)
			}
		case string:
			if key != "url" && key != "href" && !strings.HasSuffix(key, "_url") {
				return
			}
			u, err := url.Parse(t)
			if err != nil || u.Host == "" {
				return // not an absolute link; the schema judges it
			}
			path := u.EscapedPath()
			if i := strings.IndexByte(path, '{'); i >= 0 {
				path = path[:i] // a template's expressions are not part of the path
			}
			if strings.ContainsAny(path, "[] ") {
				bad = append(bad, key+": "+t)
			}
		}
	}
	walk("", doc)
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("unescaped characters in links: %s", strings.Join(bad, ", "))
}

// driveRound runs driveEveryRoute on a new forge, recording every REST
// exchange and every webhook (the App's and a repository hook's).
func driveRound(t *testing.T) (*forgetest.Env, *exchangeLog, *fidHookRecorder) {
	t.Helper()
	env := forgetest.New(t)
	hooks := newFidHookRecorder(t, env)
	repoHookSrv := httptest.NewServer(http.HandlerFunc(hooks.serve))
	t.Cleanup(repoHookSrv.Close)
	log := &exchangeLog{}
	d := &schemaDriver{t: t, api: strings.TrimSuffix(env.Forge.APIURL(), "/"),
		client: &http.Client{Transport: recordingTransport{log: log, next: http.DefaultTransport}}}
	driveEveryRoute(t, env, d, repoHookSrv.URL)
	env.WaitDeliveries(t)
	for _, e := range d.errs {
		t.Errorf("scenario: %s", e)
	}
	return env, log, hooks
}

var schemaRouteVar = regexp.MustCompile(`\{([^}:]+):[^}]*\}`)

// routeOf finds the forge route that served an exchange.
func routeOf(router *mux.Router, ex exchange) (forge.Route, bool) {
	req, err := http.NewRequest(ex.method, "http://forge.invalid"+ex.path, nil)
	if err != nil {
		return forge.Route{}, false
	}
	var m mux.RouteMatch
	if !router.Match(req, &m) || m.Route == nil {
		return forge.Route{}, false
	}
	tpl, err := m.Route.GetPathTemplate()
	if err != nil {
		return forge.Route{}, false
	}
	tpl = strings.TrimPrefix(strings.TrimPrefix(tpl, "/api/v3"), "/api/uploads")
	return forge.Route{Method: ex.method, Path: schemaRouteVar.ReplaceAllString(tpl, "{$1}")}, true
}
