package forge

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// What a signed-in viewer does on the forge's pages: each form posts to
// one of these, which makes the same REST call the user would make on
// GitHub (so porchbot hears the same webhooks), then sends the browser
// back to the page with what happened as a notice. Only a session can
// post, with its form key: a browser that signed in with basic auth, or
// a page of another site, cannot act in the viewer's name.

// noticeCookie carries an action's outcome to the next page, once.
const noticeCookie = "forge_notice"

func (f *Forge) routesWebActions(root *mux.Router) {
	post := func(path string, h func(*webViewer, *http.Request, string) (back, notice string)) {
		root.HandleFunc(path, f.webAction(h)).Methods(http.MethodPost)
	}
	post("/{owner}/{repo}/pulls", webOpenPull)
	post("/{owner}/{repo}/issues", webOpenIssue)
	post("/{owner}/{repo}/issues/{number:[0-9]+}/comment", webComment)
	post("/{owner}/{repo}/pull/{number:[0-9]+}/review", webReview)
	post("/{owner}/{repo}/pull/{number:[0-9]+}/merge", webMerge)
}

// webAction checks the session and its form key, runs h, and redirects
// to where h says with its notice.
func (f *Forge) webAction(h func(*webViewer, *http.Request, string) (back, notice string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxWebForm)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
			return
		}
		p, ws := f.sessionPrincipal(r)
		if p == nil {
			http.Redirect(w, r, "/login?return_to="+webRepoPath(r), http.StatusSeeOther)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("form_key")), []byte(ws.formKey)) != 1 {
			http.Error(w, "this form is not from your session: reload the page and try again", http.StatusForbidden)
			return
		}
		v := &webViewer{f: f, p: p, formKey: ws.formKey}
		back, notice := h(v, r, webRepoPath(r))
		if notice != "" {
			http.SetCookie(w, &http.Cookie{Name: noticeCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(notice)),
				Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		http.Redirect(w, r, back, http.StatusSeeOther)
	}
}

// do makes one REST call as the viewer: its status and decoded answer.
func (v *webViewer) do(method, path string, body any) (int, map[string]any) {
	b, _ := json.Marshal(body)
	code, answer := v.call(method, path, b)
	var out map[string]any
	_ = json.Unmarshal(answer, &out)
	return code, out
}

// failed says why a call did not succeed, in GitHub's words.
func failed(what string, code int, out map[string]any) string {
	msg := str(out, "message")
	var details []string
	for _, e := range items(out["errors"]) {
		if m := str(e, "message"); m != "" {
			details = append(details, m)
		}
	}
	if len(details) > 0 {
		msg += ": " + strings.Join(details, "; ")
	}
	if msg == "" {
		msg = http.StatusText(code)
	}
	return fmt.Sprintf("%s failed (%d): %s", what, code, msg)
}

func webOpenPull(v *webViewer, r *http.Request, web string) (string, string) {
	code, out := v.do(http.MethodPost, repoPath(r)+"/pulls", map[string]any{"title": r.PostForm.Get("title"),
		"head": r.PostForm.Get("head"), "base": r.PostForm.Get("base"), "body": r.PostForm.Get("body")})
	if code != http.StatusCreated {
		return web, failed("Opening the pull request", code, out)
	}
	return web + "/pull/" + str(out, "number"), "Pull request #" + str(out, "number") + " opened."
}

func webOpenIssue(v *webViewer, r *http.Request, web string) (string, string) {
	code, out := v.do(http.MethodPost, repoPath(r)+"/issues", map[string]any{"title": r.PostForm.Get("title"),
		"body": r.PostForm.Get("body")})
	if code != http.StatusCreated {
		return web, failed("Opening the issue", code, out)
	}
	return web + "/issues/" + str(out, "number"), "Issue #" + str(out, "number") + " opened."
}

func webComment(v *webViewer, r *http.Request, web string) (string, string) {
	n := mux.Vars(r)["number"]
	back := web + "/issues/" + n // a pull request's issue page shows the pull request
	code, out := v.do(http.MethodPost, repoPath(r)+"/issues/"+n+"/comments", map[string]any{"body": r.PostForm.Get("body")})
	if code != http.StatusCreated {
		return back, failed("Commenting", code, out)
	}
	return back, "Comment posted."
}

func webReview(v *webViewer, r *http.Request, web string) (string, string) {
	n := mux.Vars(r)["number"]
	back := web + "/pull/" + n
	event := r.PostForm.Get("event")
	if event != "APPROVE" && event != "REQUEST_CHANGES" && event != "COMMENT" {
		return back, "A review approves, requests changes or comments."
	}
	code, out := v.do(http.MethodPost, repoPath(r)+"/pulls/"+n+"/reviews", map[string]any{"event": event,
		"body": r.PostForm.Get("body")})
	if code != http.StatusOK {
		return back, failed("Reviewing", code, out)
	}
	return back, map[string]string{"APPROVE": "Approved.", "REQUEST_CHANGES": "Changes requested.", "COMMENT": "Review posted."}[event]
}

func webMerge(v *webViewer, r *http.Request, web string) (string, string) {
	n := mux.Vars(r)["number"]
	back := web + "/pull/" + n
	method := r.PostForm.Get("merge_method")
	if method == "" {
		method = "merge"
	}
	code, out := v.do(http.MethodPut, repoPath(r)+"/pulls/"+n+"/merge", map[string]any{"merge_method": method})
	if code != http.StatusOK {
		return back, failed("Merging", code, out)
	}
	return back, "Pull request #" + n + " merged (" + str(out, "sha") + ")."
}
