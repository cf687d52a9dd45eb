package forge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// htmlURLs collects the html_url (and _links.html.href) links of a JSON
// body, without their fragments.
func htmlURLs(body []byte, into map[string]bool) {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if k == "html" {
					if m, ok := x.(map[string]any); ok {
						if s, ok := m["href"].(string); ok {
							into[strings.SplitN(s, "#", 2)[0]] = true
						}
					}
				}
				walk(k, x)
			}
		case []any:
			for _, x := range t {
				walk(key, x)
			}
		case string:
			if key == "html_url" && t != "" {
				into[strings.SplitN(t, "#", 2)[0]] = true
			}
		}
	}
	walk("", doc)
}

// Every html_url the forge hands out in a lifecycle round (REST answers
// and webhooks) answers 200 with a page, for a viewer who signs in as on
// git; the objects the round deleted are 404.
func TestWebPagesForEveryHTMLURL(t *testing.T) {
	env, log, hooks := driveRound(t)
	links := map[string]bool{}
	for _, ex := range log.all {
		htmlURLs(ex.body, links)
	}
	for _, d := range hooks.all() {
		htmlURLs(d.body, links)
	}
	// The links porchbot builds itself (bot/commands/markdown.go): a
	// publication's tag tree, a branch tree.
	links[env.Forge.BaseURL()+"/acme/catalog/tree/network/upf/v1"] = true
	links[env.Forge.BaseURL()+"/acme/catalog/tree/main"] = true
	// Deleted in the round: a pre-release and a file.
	gone := map[string]bool{
		env.Forge.BaseURL() + "/acme/catalog/releases/tag/network/upf/v2-rc":     true,
		env.Forge.BaseURL() + "/acme/catalog/blob/main/network/upf/scratch.yaml": true,
	}
	var sorted []string
	for l := range links {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	if len(sorted) < 20 {
		t.Fatalf("only %d html_url links in the round: %v", len(sorted), sorted)
	}
	kinds := map[string]bool{}
	for _, l := range sorted {
		if !strings.HasPrefix(l, env.Forge.BaseURL()+"/") {
			t.Errorf("html_url %s is not on the forge's web host", l)
			continue
		}
		status, ctype, _ := webGet(t, l, "alice", forgetest.AliceToken)
		want := http.StatusOK
		if gone[l] {
			want = http.StatusNotFound
		}
		if status != want {
			t.Errorf("GET %s: %d, want %d", l, status, want)
			continue
		}
		if want == http.StatusOK && !strings.HasPrefix(ctype, "text/html") {
			t.Errorf("GET %s: Content-Type %q", l, ctype)
		}
		for _, k := range []string{"/pull/", "/issues/", "/commit/", "/compare/", "/releases/tag/", "/tree/", "/blob/", "/runs/", "/apps/"} {
			if strings.Contains(l, k) {
				kinds[k] = true
			}
		}
	}
	for _, k := range []string{"/pull/", "/issues/", "/commit/", "/compare/", "/releases/tag/", "/tree/", "/runs/"} {
		if !kinds[k] {
			t.Errorf("no html_url of kind %s in the round", k)
		}
	}
	t.Logf("%d html_url links followed", len(sorted))
}

func webGet(t *testing.T, link, login, token string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if login != "" {
		req.SetBasicAuth(login, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// A page shows the object (title, state, body, files) and escapes what
// users wrote; a private repository's pages ask the anonymous to sign in
// and are hidden from those who may not read it.
func TestWebPullRequestPage(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	alice := env.Client(forgetest.AliceToken)
	acct, _ := env.Forge.Account("alice")
	if _, err := env.Forge.CommitFiles(env.CatalogRepo, "main", map[string][]byte{"README.md": []byte("# c\n")}, "init", acct); err != nil {
		t.Fatal(err)
	}
	main, _, err := alice.Git.GetRef(ctx, "acme", "catalog", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	blob, _, err := alice.Git.CreateBlob(ctx, "acme", "catalog", &github.Blob{Content: github.String("a: 1\n"), Encoding: github.String("utf-8")})
	if err != nil {
		t.Fatal(err)
	}
	base, _, err := alice.Git.GetCommit(ctx, "acme", "catalog", main.GetObject().GetSHA())
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := alice.Git.CreateTree(ctx, "acme", "catalog", base.GetTree().GetSHA(),
		[]*github.TreeEntry{{Path: github.String("network/upf/cm.yaml"), Mode: github.String("100644"), Type: github.String("blob"), SHA: blob.SHA}})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := alice.Git.CreateCommit(ctx, "acme", "catalog", &github.Commit{Message: github.String("Edit upf"), Tree: tree,
		Parents: []*github.Commit{{SHA: main.GetObject().SHA}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/drafts/upf/w1"),
		Object: &github.GitObject{SHA: c.SHA}}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := alice.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String(`<script>alert("x")</script> upf`), Head: github.String("drafts/upf/w1"), Base: github.String("main"),
		Body: github.String("Proposes <b>upf</b> & more <script>alert(1)</script> <img src=x onerror=alert(1)> " +
			"[click](javascript:alert(1)) <!-- porchbot:marker -->\n\n<details><summary>Why</summary>\n\nBecause.\n\n</details>")})
	if err != nil {
		t.Fatal(err)
	}
	status, _, page := webGet(t, pr.GetHTMLURL(), "bob", forgetest.BobToken)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d", pr.GetHTMLURL(), status)
	}
	// The title is text; the body markdown as GitHub renders it: its bare
	// <b>, <details> and <summary> kept, any other tag shown as text, HTML
	// comments (porchbot's markers) dropped, no javascript: link.
	for _, want := range []string{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; upf", "Proposes <b>upf</b> &amp; more",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "<details><summary>Why</summary>",
		"open", "network/upf/cm.yaml", "drafts/upf/w1", c.GetSHA()} {
		if !strings.Contains(page, want) {
			t.Errorf("the pull request page lacks %q:\n%s", want, page)
		}
	}
	for _, bad := range []string{"<script>", "<img", "javascript:", "porchbot:marker"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries %q of what the author wrote:\n%s", bad, page)
		}
	}
	if s, _, _ := webGet(t, pr.GetHTMLURL(), "", ""); s != http.StatusUnauthorized {
		t.Errorf("anonymous GET of a private repository's page: %d, want 401 (sign in)", s)
	}
	if s, _, _ := webGet(t, pr.GetHTMLURL(), "mallory", forgetest.MalloryToken); s != http.StatusNotFound {
		t.Errorf("GET by a user who may not read the repository: %d, want 404", s)
	}
	if s, _, _ := webGet(t, pr.GetHTMLURL(), "alice", "wrong-token"); s != http.StatusUnauthorized {
		t.Errorf("GET with bad credentials: %d, want 401", s)
	}
	// Commit and tree pages of the draft (a branch with slashes).
	for _, l := range []string{env.Forge.BaseURL() + "/acme/catalog/commit/" + c.GetSHA(),
		env.Forge.BaseURL() + "/acme/catalog/tree/drafts/upf/w1/network/upf",
		env.Forge.BaseURL() + "/acme/catalog/blob/drafts/upf/w1/network/upf/cm.yaml"} {
		s, _, body := webGet(t, l, "bob", forgetest.BobToken)
		if s != http.StatusOK || !strings.Contains(body, "cm.yaml") {
			t.Errorf("GET %s: %d\n%s", l, s, body)
		}
	}
	if s, _, body := webGet(t, env.Forge.BaseURL()+"/acme/catalog/blob/drafts/upf/w1/network/upf/cm.yaml", "bob", forgetest.BobToken); s != http.StatusOK || !strings.Contains(body, "a: 1") {
		t.Errorf("the blob page does not show the file: %d\n%s", s, body)
	}
	// A page view is not an API call.
	before := env.Forge.Stats().Snapshot()
	webGet(t, pr.GetHTMLURL(), "bob", forgetest.BobToken)
	if after := env.Forge.Stats().Snapshot(); !bytes.Equal(mustJSON(t, before), mustJSON(t, after)) {
		t.Errorf("viewing a page counted API calls: %v → %v", before, after)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
