package forge_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// browser is an HTTP client with a cookie jar, as a browser signs in to
// the forge's pages; it does not follow redirects, so each answer is seen.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// post sends a form; it answers the status and where it redirects.
func (b *browser) post(path string, form url.Values) (int, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(b.base+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Location")
}

var formKeyRE = regexp.MustCompile(`name="form_key" value="([0-9a-f]+)"`)

// formKey is the form key of the session, read off a page as a browser has it.
func (b *browser) formKey(path string) string {
	b.t.Helper()
	_, page := b.get(path)
	m := formKeyRE.FindStringSubmatch(page)
	if m == nil || m[1] == "" {
		b.t.Fatalf("%s has no form key:\n%s", path, page)
	}
	return m[1]
}

func (b *browser) signIn(login, token string) {
	b.t.Helper()
	if s, loc := b.post("/login", url.Values{"login": {login}, "token": {token}, "return_to": {"/acme/catalog"}}); s != http.StatusSeeOther || loc != "/acme/catalog" {
		b.t.Fatalf("sign in as %s: %d → %q", login, s, loc)
	}
}

// Signed in by a session, a user opens a pull request, reviews and merges
// it from the pages, and each action is the REST call they would make;
// a form without the session's key, a wrong token and a return address
// elsewhere are refused.
func TestWebActionsSignedIn(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	acct, _ := env.Forge.Account("alice")
	first, err := env.Forge.CommitFiles(env.CatalogRepo, "main", map[string][]byte{"README.md": []byte("# c\n")}, "init", acct)
	if err != nil {
		t.Fatal(err)
	}
	gh := env.Client(forgetest.AliceToken)
	if _, _, err := gh.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/drafts/basens/w1"),
		Object: &github.GitObject{SHA: github.String(first)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Forge.CommitFiles(env.CatalogRepo, "drafts/basens/w1", map[string][]byte{"basens/ns.yaml": []byte("a: 1\n")}, "Add basens", acct); err != nil {
		t.Fatal(err)
	}
	base := env.Forge.BaseURL()

	alice := newBrowser(t, base)
	if s, _ := alice.post("/login", url.Values{"login": {"alice"}, "token": {"bob-token"}}); s != http.StatusUnauthorized {
		t.Errorf("sign in with another user's token: %d, want 401", s)
	}
	if s, loc := alice.post("/login", url.Values{"login": {"alice"}, "token": {forgetest.AliceToken}, "return_to": {"//evil.example/x"}}); s != http.StatusSeeOther || loc != "/" {
		t.Errorf("sign in returning to another site: %d → %q, want / ", s, loc)
	}
	_, home := alice.get("/")
	if !strings.Contains(home, `id="viewer" href="/alice"`) || !strings.Contains(home, `href="/acme/catalog"`) {
		t.Errorf("the home page does not show alice signed in with her repositories:\n%s", home)
	}
	key := alice.formKey("/acme/catalog")
	open := url.Values{"head": {"drafts/basens/w1"}, "base": {"main"}, "title": {"Add basens"}, "body": {"The **first** one."}}
	if s, _ := alice.post("/acme/catalog/pulls", open); s != http.StatusForbidden {
		t.Errorf("a form without the session's key: %d, want 403", s)
	}
	open.Set("form_key", key)
	s, loc := alice.post("/acme/catalog/pulls", open)
	if s != http.StatusSeeOther || !strings.HasPrefix(loc, "/acme/catalog/pull/") {
		_, p := alice.get("/acme/catalog")
		t.Fatalf("open a pull request from the repository page: %d → %q\n%s", s, loc, p)
	}
	number := strings.TrimPrefix(loc, "/acme/catalog/pull/")
	_, page := alice.get(loc)
	for _, want := range []string{`id="notice"`, "Pull request #" + number + " opened.", "The <strong>first</strong> one.",
		`id="approve"`, `id="merge"`, `id="comment"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the new pull request's page lacks %q:\n%s", want, page)
		}
	}
	if _, again := alice.get(loc); strings.Contains(again, `id="notice"`) {
		t.Error("the notice is shown twice")
	}

	bob := newBrowser(t, base)
	bob.signIn("bob", forgetest.BobToken)
	if s, _ := bob.post(loc+"/review", url.Values{"event": {"APPROVE"}, "body": {"LGTM"}, "form_key": {key}}); s != http.StatusForbidden {
		t.Errorf("bob posting alice's form key: %d, want 403", s)
	}
	if s, _ := bob.post(loc+"/review", url.Values{"event": {"APPROVE"}, "body": {"LGTM"}, "form_key": {bob.formKey(loc)}}); s != http.StatusSeeOther {
		t.Fatalf("approve: %d", s)
	}
	if s, _ := bob.post("/acme/catalog/issues/"+number+"/comment", url.Values{"body": {"/porch approve"}, "form_key": {bob.formKey(loc)}}); s != http.StatusSeeOther {
		t.Fatalf("comment: %d", s)
	}
	n, err := strconv.Atoi(number)
	if err != nil {
		t.Fatal(err)
	}
	reviews, _, err := gh.PullRequests.ListReviews(ctx, "acme", "catalog", n, nil)
	if err != nil || len(reviews) != 1 || reviews[0].GetState() != "APPROVED" || reviews[0].GetUser().GetLogin() != "bob" {
		t.Fatalf("reviews after bob's approve: %v %v", reviews, err)
	}
	comments, _, err := gh.Issues.ListComments(ctx, "acme", "catalog", n, nil)
	if err != nil || len(comments) != 1 || comments[0].GetBody() != "/porch approve" || comments[0].GetUser().GetLogin() != "bob" {
		t.Fatalf("comments after bob's comment: %v %v", comments, err)
	}
	_, page = alice.get(loc)
	for _, want := range []string{"approved", "LGTM", "/porch approve"} {
		if !strings.Contains(page, want) {
			t.Errorf("the conversation lacks %q:\n%s", want, page)
		}
	}

	if s, _ := alice.post(loc+"/merge", url.Values{"merge_method": {"merge"}, "form_key": {key}}); s != http.StatusSeeOther {
		t.Fatalf("merge: %d", s)
	}
	pr, _, err := gh.PullRequests.Get(ctx, "acme", "catalog", n)
	if err != nil || !pr.GetMerged() {
		t.Fatalf("after the merge button: merged=%v %v", pr.GetMerged(), err)
	}
	_, page = alice.get(loc)
	if !strings.Contains(page, "merged (") || strings.Contains(page, `id="merge"`) {
		t.Errorf("the merged pull request's page:\n%s", page)
	}

	// A failed action says why, in GitHub's words.
	if s, _ := alice.post("/acme/catalog/pulls", url.Values{"head": {"no-such-branch"}, "base": {"main"}, "title": {"x"}, "form_key": {key}}); s != http.StatusSeeOther {
		t.Fatalf("open from a missing branch: %d", s)
	}
	if _, page := alice.get("/acme/catalog"); !strings.Contains(page, "Opening the pull request failed (422)") {
		t.Errorf("no notice of the failed action:\n%s", page)
	}

	// Signed out, the session's key no longer acts.
	if s, _ := alice.post("/logout", url.Values{"form_key": {key}}); s != http.StatusSeeOther {
		t.Fatalf("sign out: %d", s)
	}
	if s, loc := alice.post("/acme/catalog/issues", url.Values{"title": {"x"}, "form_key": {key}}); s != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Errorf("an action after signing out: %d → %q, want the sign-in page", s, loc)
	}
}
