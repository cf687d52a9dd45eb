package forge

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
)

// The forge's web pages: the html_url links its objects carry (pull
// requests, issues, commits, comparisons, releases, branches and trees,
// files, check runs, people, the App, teams, installations) answer with a
// small server-rendered page, so the links porchbot posts in comments and
// releases resolve in embedded mode. A page is a view of the REST
// answers for the same object, fetched in-process as the viewer (who
// signs in with HTTP basic auth, login and token, as for git), so it
// shows exactly what the API shows them and nothing more.

func (f *Forge) routesWeb(root *mux.Router) {
	get := func(path string, h func(http.ResponseWriter, *http.Request, *webViewer)) {
		root.HandleFunc(path, f.webHandler(h)).Methods(http.MethodGet)
	}
	get("/apps/{slug}", f.webApp)
	get("/orgs/{org}/teams/{slug}", f.webTeam)
	get("/settings/installations/{id:[0-9]+}", f.webInstallation)
	get("/{owner}/{repo}/pull/{number:[0-9]+}", f.webPull)
	get("/{owner}/{repo}/issues/{number:[0-9]+}", f.webIssue)
	get("/{owner}/{repo}/commit/{sha:[0-9a-fA-F]+}", f.webCommit)
	get("/{owner}/{repo}/compare/{basehead:.+}", f.webCompare)
	get("/{owner}/{repo}/releases/tag/{tag:.+}", f.webRelease)
	get("/{owner}/{repo}/tree/{rest:.+}", f.webTree)
	get("/{owner}/{repo}/blob/{rest:.+}", f.webBlob)
	get("/{owner}/{repo}/runs/{id:[0-9]+}", f.webCheckRun)
	get("/{owner}/{repo}", f.webRepo)
	get("/{login}", f.webUser)
}

// webViewer is who looks at a page, and the REST API they see.
type webViewer struct {
	f    *Forge
	p    *principal
	anon bool
}

// webHandler authenticates the viewer (basic auth or a token; none is
// anonymous) and renders the page, or its error.
func (f *Forge) webHandler(h func(http.ResponseWriter, *http.Request, *webViewer)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := f.authenticate(r)
		if err != nil {
			webDenied(w, "Bad credentials")
			return
		}
		h(w, r, &webViewer{f: f, p: p, anon: p == nil})
	}
}

func webDenied(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="forge"`)
	http.Error(w, msg, http.StatusUnauthorized)
}

// get reads one REST answer as the viewer: its status and decoded body.
func (v *webViewer) get(path string) (int, any) {
	req := httptest.NewRequest(http.MethodGet, apiPrefix+path, nil)
	req = req.WithContext(withPrincipal(req.Context(), v.p))
	rec := httptest.NewRecorder()
	v.f.webAPI().ServeHTTP(rec, req)
	var out any
	if rec.Code == http.StatusOK {
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
	}
	return rec.Code, out
}

// must reads an answer the page cannot do without; false (and the page's
// error written) when it is not there.
func (v *webViewer) must(w http.ResponseWriter, path string) (any, bool) {
	code, out := v.get(path)
	switch {
	case code == http.StatusOK:
		return out, true
	case v.anon && (code == http.StatusNotFound || code == http.StatusUnauthorized || code == http.StatusForbidden):
		// A private object looks absent to the anonymous: ask them to sign in.
		webDenied(w, "Sign in (your login and token) to see this page.")
	case code == http.StatusNotFound:
		http.Error(w, "404: Not Found", http.StatusNotFound)
	default:
		http.Error(w, http.StatusText(code), code)
	}
	return nil, false
}

// webAPI is the REST API without the counting, faults and rate budget
// of the served one: a page view is not an API call.
func (f *Forge) webAPI() http.Handler {
	f.webAPIOnce.Do(func() {
		r := mux.NewRouter()
		f.routesAPI(r.PathPrefix(apiPrefix).Subrouter())
		f.webAPIRouter = r
	})
	return f.webAPIRouter
}

// ---------------------------------------------------------------------
// Pages.

// webPage is what a page shows: a title, facts, a text (shown as is) and
// sections of rows or text. Everything is escaped by html/template.
type webPage struct {
	Title    string
	Facts    []webFact
	Text     string
	Sections []webSection
}

type webFact struct{ Label, Value string }

type webSection struct {
	Heading string
	Columns []string
	Rows    [][]string
	Text    string
}

var webTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}pre{background:#f6f8fa;padding:1em;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}dt{font-weight:bold}</style></head>
<body><p>local forge</p><h1>{{.Title}}</h1>
{{if .Facts}}<dl>{{range .Facts}}<dt>{{.Label}}</dt><dd>{{.Value}}</dd>{{end}}</dl>{{end}}
{{if .Text}}<pre>{{.Text}}</pre>{{end}}
{{range .Sections}}<h2>{{.Heading}}</h2>{{if .Text}}<pre>{{.Text}}</pre>{{end}}{{if .Rows}}<table>{{if .Columns}}<tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>{{end}}{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}{{end}}
</body></html>
`))

func writePage(w http.ResponseWriter, pg webPage) {
	var buf bytes.Buffer
	if err := webTemplate.Execute(&buf, pg); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(buf.Bytes())
}

// str reads a dotted path ("user.login", "0.sha") of a decoded answer.
func str(v any, path string) string {
	for _, k := range strings.Split(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			v = t[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(t) {
				return ""
			}
			v = t[i]
		default:
			return ""
		}
	}
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func items(v any) []any {
	l, _ := v.([]any)
	return l
}

// rows makes a table's rows of a list, one column per path.
func rows(v any, paths ...string) [][]string {
	var out [][]string
	for _, it := range items(v) {
		row := make([]string, len(paths))
		for i, p := range paths {
			row[i] = str(it, p)
		}
		out = append(out, row)
	}
	return out
}

func repoPath(r *http.Request) string {
	v := mux.Vars(r)
	return "/repos/" + url.PathEscape(v["owner"]) + "/" + url.PathEscape(v["repo"])
}

func (f *Forge) webRepo(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r)
	repo, ok := v.must(w, base)
	if !ok {
		return
	}
	_, pulls := v.get(base + "/pulls?state=all&per_page=100")
	_, releases := v.get(base + "/releases?per_page=100")
	_, branches := v.get(base + "/branches?per_page=100")
	writePage(w, webPage{Title: str(repo, "full_name"), Text: str(repo, "description"),
		Facts: []webFact{{"Default branch", str(repo, "default_branch")}, {"Visibility", str(repo, "visibility")},
			{"Clone", str(repo, "clone_url")}},
		Sections: []webSection{
			{Heading: "Pull requests", Columns: []string{"#", "Title", "State", "Author"}, Rows: rows(pulls, "number", "title", "state", "user.login")},
			{Heading: "Releases", Columns: []string{"Tag", "Name"}, Rows: rows(releases, "tag_name", "name")},
			{Heading: "Branches", Columns: []string{"Branch", "Head"}, Rows: rows(branches, "name", "commit.sha")},
		}})
}

func (f *Forge) webPull(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r) + "/pulls/" + mux.Vars(r)["number"]
	pr, ok := v.must(w, base)
	if !ok {
		return
	}
	state := str(pr, "state")
	if str(pr, "merged") == "true" {
		state = "merged"
	}
	_, files := v.get(base + "/files?per_page=100")
	_, commits := v.get(base + "/commits?per_page=100")
	_, reviews := v.get(base + "/reviews?per_page=100")
	_, comments := v.get(repoPath(r) + "/issues/" + mux.Vars(r)["number"] + "/comments?per_page=100")
	writePage(w, webPage{Title: str(pr, "title") + " #" + str(pr, "number"), Text: str(pr, "body"),
		Facts: []webFact{{"State", state}, {"Author", str(pr, "user.login")},
			{"Wants to merge", str(pr, "head.ref") + " (" + str(pr, "head.sha") + ") into " + str(pr, "base.ref")},
			{"Merge commit", str(pr, "merge_commit_sha")}},
		Sections: []webSection{
			filesSection(files),
			commitsSection(commits),
			{Heading: "Reviews", Columns: []string{"Reviewer", "State", "Comment"}, Rows: rows(reviews, "user.login", "state", "body")},
			conversationSection(comments),
		}})
}

func (f *Forge) webIssue(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r) + "/issues/" + mux.Vars(r)["number"]
	is, ok := v.must(w, base)
	if !ok {
		return
	}
	if str(is, "pull_request.url") != "" {
		f.webPull(w, r, v) // a pull request's issue is shown as the pull request, as on GitHub
		return
	}
	_, comments := v.get(base + "/comments?per_page=100")
	var labels []string
	for _, l := range items(asMap(is)["labels"]) {
		labels = append(labels, str(l, "name"))
	}
	writePage(w, webPage{Title: str(is, "title") + " #" + str(is, "number"), Text: str(is, "body"),
		Facts: []webFact{{"State", str(is, "state")}, {"Author", str(is, "user.login")}, {"Labels", strings.Join(labels, ", ")}},
		Sections: []webSection{
			conversationSection(comments),
		}})
}

func filesSection(files any) webSection {
	return webSection{Heading: "Files changed", Columns: []string{"File", "Status", "+", "-"},
		Rows: rows(files, "filename", "status", "additions", "deletions")}
}

func commitsSection(commits any) webSection {
	return webSection{Heading: "Commits", Columns: []string{"Commit", "Message"}, Rows: rows(commits, "sha", "commit.message")}
}

func conversationSection(comments any) webSection {
	return webSection{Heading: "Conversation", Columns: []string{"Author", "Comment"}, Rows: rows(comments, "user.login", "body")}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func (f *Forge) webCommit(w http.ResponseWriter, r *http.Request, v *webViewer) {
	c, ok := v.must(w, repoPath(r)+"/commits/"+mux.Vars(r)["sha"])
	if !ok {
		return
	}
	writePage(w, webPage{Title: "Commit " + str(c, "sha"), Text: str(c, "commit.message"),
		Facts: []webFact{{"Author", str(c, "commit.author.name") + " <" + str(c, "commit.author.email") + ">"},
			{"Date", str(c, "commit.author.date")}, {"Parents", joinPaths(asMap(c)["parents"], "sha")}},
		Sections: []webSection{
			filesSection(asMap(c)["files"]),
		}})
}

func joinPaths(v any, path string) string {
	var out []string
	for _, it := range items(v) {
		out = append(out, str(it, path))
	}
	return strings.Join(out, ", ")
}

func (f *Forge) webCompare(w http.ResponseWriter, r *http.Request, v *webViewer) {
	basehead := mux.Vars(r)["basehead"]
	c, ok := v.must(w, repoPath(r)+"/compare/"+escapePath(basehead))
	if !ok {
		return
	}
	m := asMap(c)
	writePage(w, webPage{Title: "Comparing " + basehead,
		Facts: []webFact{{"Status", str(c, "status")}, {"Ahead by", str(c, "ahead_by")}, {"Behind by", str(c, "behind_by")}},
		Sections: []webSection{
			commitsSection(m["commits"]),
			filesSection(m["files"]),
		}})
}

func (f *Forge) webRelease(w http.ResponseWriter, r *http.Request, v *webViewer) {
	tag := mux.Vars(r)["tag"]
	rel, ok := v.must(w, repoPath(r)+"/releases/tags/"+escapePath(tag))
	if !ok {
		return
	}
	writePage(w, webPage{Title: str(rel, "name"), Text: str(rel, "body"),
		Facts: []webFact{{"Tag", str(rel, "tag_name")}, {"Target", str(rel, "target_commitish")},
			{"Author", str(rel, "author.login")}, {"Published", str(rel, "published_at")},
			{"Pre-release", str(rel, "prerelease")}}})
}

// splitRef splits "<ref>/<path>" where the ref may hold slashes
// (drafts/network/upf/w1): the longest prefix that names a commit wins.
func (v *webViewer) splitRef(base, rest string) (ref, path string, commit any, ok bool) {
	for i := len(rest); i > 0; i = strings.LastIndexByte(rest[:i], '/') {
		code, c := v.get(base + "/commits/" + escapePath(rest[:i]))
		if code == http.StatusOK {
			return rest[:i], strings.Trim(rest[i:], "/"), c, true
		}
	}
	return "", "", nil, false
}

func (f *Forge) webTree(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r)
	if _, ok := v.must(w, base); !ok {
		return
	}
	ref, path, commit, ok := v.splitRef(base, mux.Vars(r)["rest"])
	if !ok {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	code, entries := v.get(base + "/contents/" + escapePath(path) + "?ref=" + url.QueryEscape(ref))
	if code != http.StatusOK {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	if _, isList := entries.([]any); !isList {
		entries = []any{entries}
	}
	writePage(w, webPage{Title: mux.Vars(r)["owner"] + "/" + mux.Vars(r)["repo"] + " at " + ref + "/" + path,
		Facts: []webFact{{"Commit", str(commit, "sha")}, {"Message", str(commit, "commit.message")}},
		Sections: []webSection{
			{Heading: "Files", Columns: []string{"Name", "Type", "Size"}, Rows: rows(entries, "name", "type", "size")},
		}})
}

// escapePath escapes a path read from the page's URL (a ref, a tag, a
// file) for the API request, so that "?" or "#" in it stay in the path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func (f *Forge) webBlob(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r)
	if _, ok := v.must(w, base); !ok {
		return
	}
	ref, path, _, ok := v.splitRef(base, mux.Vars(r)["rest"])
	if !ok || path == "" {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	code, file := v.get(base + "/contents/" + escapePath(path) + "?ref=" + url.QueryEscape(ref))
	if code != http.StatusOK || str(file, "type") != "file" {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	text := decodeContent(str(file, "content"))
	writePage(w, webPage{Title: path + " at " + ref, Text: text,
		Facts: []webFact{{"Size", str(file, "size")}, {"Blob", str(file, "sha")}}})
}

func (f *Forge) webCheckRun(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r) + "/check-runs/" + mux.Vars(r)["id"]
	run, ok := v.must(w, base)
	if !ok {
		return
	}
	_, ann := v.get(base + "/annotations?per_page=100")
	writePage(w, webPage{Title: str(run, "name") + ": " + str(run, "output.title"), Text: str(run, "output.summary"),
		Facts: []webFact{{"Status", str(run, "status")}, {"Conclusion", str(run, "conclusion")},
			{"Commit", str(run, "head_sha")}, {"Details", str(run, "details_url")}},
		Sections: []webSection{
			{Heading: "Details", Text: str(run, "output.text")},
			{Heading: "Annotations", Columns: []string{"File", "Line", "Level", "Message"},
				Rows: rows(ann, "path", "start_line", "annotation_level", "message")},
		}})
}

func (f *Forge) webUser(w http.ResponseWriter, r *http.Request, v *webViewer) {
	u, ok := v.must(w, "/users/"+url.PathEscape(mux.Vars(r)["login"]))
	if !ok {
		return
	}
	writePage(w, webPage{Title: str(u, "login"), Facts: []webFact{{"Type", str(u, "type")}, {"Name", str(u, "name")}}})
}

func (f *Forge) webApp(w http.ResponseWriter, r *http.Request, _ *webViewer) {
	app := f.appInfo()
	if app == nil || app.Slug != mux.Vars(r)["slug"] {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	writePage(w, webPage{Title: app.Slug, Facts: []webFact{{"App id", strconv.FormatInt(app.ID, 10)},
		{"Events", strings.Join(f.appEvents(), ", ")}}})
}

func (f *Forge) webTeam(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := "/orgs/" + url.PathEscape(mux.Vars(r)["org"]) + "/teams/" + url.PathEscape(mux.Vars(r)["slug"])
	t, ok := v.must(w, base)
	if !ok {
		return
	}
	_, members := v.get(base + "/members?per_page=100")
	writePage(w, webPage{Title: str(t, "organization.login") + "/" + str(t, "slug"),
		Sections: []webSection{{Heading: "Members", Rows: rows(members, "login")}}})
}

func (f *Forge) webInstallation(w http.ResponseWriter, r *http.Request, v *webViewer) {
	id, _ := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	f.mu.RLock()
	inst := f.installations[id]
	f.mu.RUnlock()
	// Only the installation's account (or its members) may look.
	if inst == nil || v.p == nil || !f.canSeeAccount(v.p, inst.Account) {
		if v.anon {
			webDenied(w, "Sign in (your login and token) to see this page.")
			return
		}
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	writePage(w, webPage{Title: "Installation " + strconv.FormatInt(inst.ID, 10),
		Facts: []webFact{{"Account", inst.Account.Login}, {"Repositories", "all"}}})
}

// canSeeAccount: the account itself, or a member of the organisation.
func (f *Forge) canSeeAccount(p *principal, a *Account) bool {
	if p.account != nil && p.account.ID == a.ID {
		return true
	}
	o, ok := f.org(a.Login)
	return ok && p.kind == principalUser && o.Members[strings.ToLower(p.account.Login)]
}

// decodeContent decodes the contents API's base64 (wrapped at 60).
func decodeContent(s string) string {
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(s, "\n", ""))
	if err != nil {
		return ""
	}
	return string(b)
}
