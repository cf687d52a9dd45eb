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
	root.HandleFunc("/login", f.webSignIn).Methods(http.MethodGet, http.MethodPost)
	root.HandleFunc("/logout", f.webSignOut).Methods(http.MethodPost)
	f.routesWebActions(root)
	get("/", f.webHome)
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
	// formKey is the session's form key ("" when not signed in by a
	// session: a viewer by basic auth reads pages but posts no form).
	formKey string
}

// webHandler authenticates the viewer (basic auth or a token; none is
// anonymous) and renders the page, or its error.
func (f *Forge) webHandler(h func(http.ResponseWriter, *http.Request, *webViewer)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := f.viewer(r)
		if err != nil {
			webDenied(w, "Bad credentials")
			return
		}
		h(w, r, v)
	}
}

// viewer is who r comes from: its Authorization header, else its
// session, else nobody.
func (f *Forge) viewer(r *http.Request) (*webViewer, error) {
	if r.Header.Get("Authorization") != "" {
		p, err := f.authenticate(r)
		if err != nil {
			return nil, err
		}
		return &webViewer{f: f, p: p, anon: p == nil}, nil
	}
	if p, ws := f.sessionPrincipal(r); p != nil {
		return &webViewer{f: f, p: p, formKey: ws.formKey}, nil
	}
	return &webViewer{f: f, anon: true}, nil
}

func webDenied(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="forge"`)
	http.Error(w, msg, http.StatusUnauthorized)
}

// get reads one REST answer as the viewer: its status and decoded body.
func (v *webViewer) get(path string) (int, any) {
	code, body := v.call(http.MethodGet, path, nil)
	var out any
	if code == http.StatusOK {
		_ = json.Unmarshal(body, &out)
	}
	return code, out
}

// call makes one REST call in-process as the viewer (body, when not nil,
// as JSON): a page view or a page's action is not an API call.
func (v *webViewer) call(method, path string, body []byte) (int, []byte) {
	req := httptest.NewRequest(method, apiPrefix+path, bytes.NewReader(body))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req = req.WithContext(withPrincipal(req.Context(), v.p))
	rec := httptest.NewRecorder()
	v.f.webAPI().ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
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

// webPage is what a page shows: a title, facts, a text (shown as is) or
// a body (markdown, rendered), and sections of rows, entries (comments,
// reviews, checks), text and forms. Everything else is escaped by
// html/template.
type webPage struct {
	Title    string
	Facts    []webFact
	Text     string
	Body     template.HTML
	Sections []webSection

	// Set by writePage: who looks, their session's form key, where they
	// are (to come back after signing in) and what their last action did.
	Viewer, FormKey, Here, Notice string
}

type webFact struct{ Label, Value, Href string }

type webSection struct {
	ID      string
	Heading string
	Columns []string
	Rows    [][]webCell
	Text    string
	Entries []webEntry
	Forms   []webForm
	// Note is a line under the heading (what to do to act here).
	Note     string
	NoteHref string
}

// webCell is a table cell, linked when Href is set.
type webCell struct{ Text, Href string }

// webEntry is one item of a conversation or of a pull request's checks.
type webEntry struct {
	ID, Who, WhoHref, What, When string
	Body                         template.HTML
}

// webForm posts to one of the page actions (web_actions.go).
type webForm struct {
	ID, Action string
	Fields     []webField
	Buttons    []webButton
}

// webField is a form field: Kind text, textarea or select (Options).
type webField struct {
	Name, Label, Kind, Value string
	Options                  []string
}

type webButton struct{ ID, Name, Value, Label string }

var webTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}pre{background:#f6f8fa;padding:1em;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}dt{font-weight:bold}
nav{border-bottom:1px solid #ddd;padding:.5em 0}nav form{display:inline}#notice{background:#fff8c5;padding:.5em}
article{border:1px solid #ddd;margin:.5em 0;padding:0 .8em}article header{background:#f6f8fa;margin:0 -.8em;padding:.4em .8em}
form.action{margin:.8em 0}textarea{width:100%;min-height:5em}label{display:block;margin:.3em 0}</style></head>
<body><nav><a href="/">local forge</a> · {{if .Viewer}}signed in as <a id="viewer" href="/{{.Viewer}}">{{.Viewer}}</a>
<form method="post" action="/logout"><input type="hidden" name="form_key" value="{{.FormKey}}"><button id="sign-out" type="submit">Sign out</button></form>
{{else}}<a id="sign-in" href="/login?return_to={{.Here}}">Sign in</a>{{end}}</nav>
{{if .Notice}}<p id="notice" role="status">{{.Notice}}</p>{{end}}
<h1>{{.Title}}</h1>
{{if .Facts}}<dl>{{range .Facts}}<dt>{{.Label}}</dt><dd>{{if .Href}}<a href="{{.Href}}">{{.Value}}</a>{{else}}{{.Value}}{{end}}</dd>{{end}}</dl>{{end}}
{{if .Body}}<div class="markdown" id="body">{{.Body}}</div>{{end}}
{{if .Text}}<pre>{{.Text}}</pre>{{end}}
{{range .Sections}}<section{{if .ID}} id="{{.ID}}"{{end}}><h2>{{.Heading}}</h2>
{{if .Note}}<p>{{if .NoteHref}}<a href="{{.NoteHref}}">{{.Note}}</a>{{else}}{{.Note}}{{end}}</p>{{end}}
{{if .Text}}<pre>{{.Text}}</pre>{{end}}
{{if .Rows}}<table>{{if .Columns}}<tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>{{end}}{{range .Rows}}<tr>{{range .}}<td>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{range .Entries}}<article{{if .ID}} id="{{.ID}}"{{end}}><header><strong>{{if .WhoHref}}<a href="{{.WhoHref}}">{{.Who}}</a>{{else}}{{.Who}}{{end}}</strong> {{.What}}{{if .When}} <time>{{.When}}</time>{{end}}</header>
<div class="markdown">{{.Body}}</div></article>{{end}}
{{range .Forms}}<form class="action" id="{{.ID}}" method="post" action="{{.Action}}"><input type="hidden" name="form_key" value="{{$.FormKey}}">
{{range .Fields}}<label>{{.Label}} {{if eq .Kind "textarea"}}<textarea name="{{.Name}}">{{.Value}}</textarea>{{else if eq .Kind "select"}}<select name="{{.Name}}">{{range .Options}}<option>{{.}}</option>{{end}}</select>{{else}}<input name="{{.Name}}" value="{{.Value}}">{{end}}</label>
{{end}}{{range .Buttons}}<button id="{{.ID}}" type="submit"{{if .Name}} name="{{.Name}}" value="{{.Value}}"{{end}}>{{.Label}}</button> {{end}}</form>
{{end}}</section>
{{end}}</body></html>
`))

// writePage renders pg for the viewer: their name and form key, the page
// they are on, and the notice their last action left (read once).
func (v *webViewer) writePage(w http.ResponseWriter, r *http.Request, pg webPage) {
	if v.p != nil && v.p.account != nil {
		pg.Viewer = v.p.account.Login
	}
	pg.FormKey = v.formKey
	pg.Here = r.URL.RequestURI()
	if c, err := r.Cookie(noticeCookie); err == nil {
		if b, err := base64.RawURLEncoding.DecodeString(c.Value); err == nil {
			pg.Notice = string(b)
		}
		http.SetCookie(w, &http.Cookie{Name: noticeCookie, Value: "", Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, MaxAge: -1})
	}
	var buf bytes.Buffer
	if err := webTemplate.Execute(&buf, pg); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
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
func rows(v any, paths ...string) [][]webCell {
	var out [][]webCell
	for _, it := range items(v) {
		row := make([]webCell, len(paths))
		for i, p := range paths {
			row[i] = webCell{Text: str(it, p)}
		}
		out = append(out, row)
	}
	return out
}

// linkColumn links column col of each row to href of the item it shows.
func linkColumn(rs [][]webCell, v any, col int, href func(item any) string) [][]webCell {
	for i, it := range items(v) {
		if i < len(rs) && col < len(rs[i]) {
			rs[i][col].Href = href(it)
		}
	}
	return rs
}

// webRepoPath is the web path of the request's repository (/owner/repo).
func webRepoPath(r *http.Request) string {
	v := mux.Vars(r)
	return "/" + url.PathEscape(v["owner"]) + "/" + url.PathEscape(v["repo"])
}

func repoPath(r *http.Request) string {
	v := mux.Vars(r)
	return "/repos/" + url.PathEscape(v["owner"]) + "/" + url.PathEscape(v["repo"])
}

func (f *Forge) webCommit(w http.ResponseWriter, r *http.Request, v *webViewer) {
	c, ok := v.must(w, repoPath(r)+"/commits/"+mux.Vars(r)["sha"])
	if !ok {
		return
	}
	v.writePage(w, r, webPage{Title: "Commit " + str(c, "sha"), Text: str(c, "commit.message"),
		Facts: []webFact{{Label: "Author", Value: str(c, "commit.author.name") + " <" + str(c, "commit.author.email") + ">"},
			{Label: "Date", Value: str(c, "commit.author.date")}, {Label: "Parents", Value: joinPaths(asMap(c)["parents"], "sha")}},
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
	v.writePage(w, r, webPage{Title: "Comparing " + basehead,
		Facts: []webFact{{Label: "Status", Value: str(c, "status")}, {Label: "Ahead by", Value: str(c, "ahead_by")}, {Label: "Behind by", Value: str(c, "behind_by")}},
		Sections: []webSection{
			commitsSection(webRepoPath(r), m["commits"]),
			filesSection(m["files"]),
		}})
}

func (f *Forge) webRelease(w http.ResponseWriter, r *http.Request, v *webViewer) {
	tag := mux.Vars(r)["tag"]
	rel, ok := v.must(w, repoPath(r)+"/releases/tags/"+escapePath(tag))
	if !ok {
		return
	}
	v.writePage(w, r, webPage{Title: str(rel, "name"), Text: str(rel, "body"),
		Facts: []webFact{{Label: "Tag", Value: str(rel, "tag_name")}, {Label: "Target", Value: str(rel, "target_commitish")},
			{Label: "Author", Value: str(rel, "author.login")}, {Label: "Published", Value: str(rel, "published_at")},
			{Label: "Pre-release", Value: str(rel, "prerelease")}}})
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
	v.writePage(w, r, webPage{Title: mux.Vars(r)["owner"] + "/" + mux.Vars(r)["repo"] + " at " + ref + "/" + path,
		Facts: []webFact{{Label: "Commit", Value: str(commit, "sha")}, {Label: "Message", Value: str(commit, "commit.message")}},
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
	v.writePage(w, r, webPage{Title: path + " at " + ref, Text: text,
		Facts: []webFact{{Label: "Size", Value: str(file, "size")}, {Label: "Blob", Value: str(file, "sha")}}})
}

func (f *Forge) webCheckRun(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r) + "/check-runs/" + mux.Vars(r)["id"]
	run, ok := v.must(w, base)
	if !ok {
		return
	}
	_, ann := v.get(base + "/annotations?per_page=100")
	v.writePage(w, r, webPage{Title: str(run, "name") + ": " + str(run, "output.title"), Text: str(run, "output.summary"),
		Facts: []webFact{{Label: "Status", Value: str(run, "status")}, {Label: "Conclusion", Value: str(run, "conclusion")},
			{Label: "Commit", Value: str(run, "head_sha")}, {Label: "Details", Value: str(run, "details_url")}},
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
	v.writePage(w, r, webPage{Title: str(u, "login"), Facts: []webFact{{Label: "Type", Value: str(u, "type")}, {Label: "Name", Value: str(u, "name")}}})
}

func (f *Forge) webApp(w http.ResponseWriter, r *http.Request, v *webViewer) {
	app := f.appInfo()
	if app == nil || app.Slug != mux.Vars(r)["slug"] {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	v.writePage(w, r, webPage{Title: app.Slug, Facts: []webFact{{Label: "App id", Value: strconv.FormatInt(app.ID, 10)},
		{Label: "Events", Value: strings.Join(f.appEvents(), ", ")}}})
}

func (f *Forge) webTeam(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := "/orgs/" + url.PathEscape(mux.Vars(r)["org"]) + "/teams/" + url.PathEscape(mux.Vars(r)["slug"])
	t, ok := v.must(w, base)
	if !ok {
		return
	}
	_, members := v.get(base + "/members?per_page=100")
	v.writePage(w, r, webPage{Title: str(t, "organization.login") + "/" + str(t, "slug"),
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
	v.writePage(w, r, webPage{Title: "Installation " + strconv.FormatInt(inst.ID, 10),
		Facts: []webFact{{Label: "Account", Value: inst.Account.Login}, {Label: "Repositories", Value: "all"}}})
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

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
