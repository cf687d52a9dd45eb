package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/demo"
	"github.com/porchbot/porchbot/internal/browsertest"
)

// README's walkthrough ("Trying it in a browser"), driven in Chromium on
// the world `make run` seeds (testdata/forge/seed.yaml), with its default
// settings: alice pushes a draft with git, then everything else happens
// on the forge's pages: she opens the pull request and sees porchbot's
// checks, bob approves, alice merges and porchbot publishes basens/v1; in
// acme/edge-1 she merges porchbot's onboarding pull request, clones the
// package with /porch clone in an issue, proposes it and, once bob
// approved, merges it; a second catalog revision then brings an update
// pull request to acme/edge-1.
func TestWalkthroughInBrowser(t *testing.T) {
	exe := browsertest.Chromium(t)
	ctx := context.Background()
	w, err := demo.StartWorld(ctx, demo.WorldOptions{DataDir: t.TempDir(), Seed: filepath.Join("..", "..", "testdata", "forge", "seed.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	wt := &walk{t: t, ctx: ctx, w: w, b: browsertest.Browser(t, exe, 5*time.Minute), web: w.Forge.BaseURL()}

	// The first revision of basens in the catalog.
	wt.pushDraft("drafts/basens/w1", "team: platform")
	wt.signIn("alice")
	pull := wt.openPull("acme/catalog", "drafts/basens/w1", "Label the basens namespace")
	wt.want(pull, "#checks", "porchbot/render", "passed")
	wt.signIn("bob")
	wt.click(pull, "#approve")
	wt.want(pull, "#checks", "porchbot/approval", "passed")
	wt.signIn("alice")
	wt.click(pull, "#merge")
	wt.want(wt.web+"/acme/catalog", "#releases", "basens/v1")

	// acme/edge-1 has no configuration: the first command there brings its
	// onboarding pull request, and nothing else happens until it is merged.
	issue := wt.openIssue("acme/edge-1", "Deploy basens")
	wt.comment(issue, "/porch clone acme/catalog/basens@v1 basens")
	wt.want(issue, "#conversation", "porchbot is not set up in acme/edge-1 yet")
	onboarding := wt.pullOf("acme/edge-1", "porchbot/configure")
	wt.want(onboarding, "h1", "Configure porchbot")
	wt.want(onboarding, "#files", ".github/porchbot.yaml")
	wt.click(onboarding, "#merge")

	// Deployed at the edge: cloned, proposed, approved, merged.
	wt.comment(issue, "/porch clone acme/catalog/basens@v1 basens")
	wt.want(issue, "#conversation", "drafts/basens/v1")
	wt.comment(issue, "/porch propose basens/v1")
	edgePull := wt.pullOf("acme/edge-1", "drafts/basens/v1")
	wt.want(edgePull, "#checks", "porchbot/render", "passed")
	wt.signIn("bob")
	wt.click(edgePull, "#approve")
	wt.signIn("alice")
	wt.click(edgePull, "#merge")
	wt.want(edgePull, "h1", "#")
	wt.want(edgePull, "dl", "merged")

	// A second revision upstream brings an update pull request downstream.
	wt.pushDraft("drafts/basens/w2", "tier: edge")
	pull2 := wt.openPull("acme/catalog", "drafts/basens/w2", "Tier the basens namespace")
	wt.signIn("bob")
	wt.click(pull2, "#approve")
	wt.signIn("alice")
	wt.click(pull2, "#merge")
	wt.want(wt.web+"/acme/catalog", "#releases", "basens/v2")
	update := wt.pullOf("acme/edge-1", "porch/update/basens")
	wt.want(wt.web+"/acme/edge-1", "#pulls", "basens")
	wt.want(update, "#body", "basens/v2")
	wt.want(update, "#files", "basens/Kptfile")
}

// walk is the walkthrough's user at a browser and a terminal.
type walk struct {
	t   *testing.T
	ctx context.Context
	w   *demo.World
	b   context.Context
	web string
}

func (wt *walk) run(what string, actions ...chromedp.Action) {
	wt.t.Helper()
	if err := chromedp.Run(wt.b, actions...); err != nil {
		var page string
		_ = chromedp.Run(wt.b, chromedp.OuterHTML("html", &page))
		wt.t.Fatalf("%s: %v\n%s", what, err, page)
	}
}

// settle waits for porchbot to finish what the last click started.
func (wt *walk) settle() {
	wt.t.Helper()
	if err := wt.w.Settle(wt.ctx); err != nil {
		wt.t.Fatal(err)
	}
}

// signIn signs in on the forge's page as user, signing out whoever was.
func (wt *walk) signIn(user string) {
	wt.t.Helper()
	var signedIn bool
	wt.run("open the forge", chromedp.Navigate(wt.web+"/"),
		chromedp.Evaluate(`document.querySelector("#sign-out") !== null`, &signedIn))
	if signedIn {
		wt.run("sign out", chromedp.Click("#sign-out", chromedp.ByQuery), chromedp.WaitVisible("#login", chromedp.ByQuery))
	}
	wt.run("sign in as "+user,
		chromedp.Navigate(wt.web+"/login?return_to=/"),
		chromedp.SendKeys("#login", user, chromedp.ByQuery),
		chromedp.SendKeys("#token", wt.w.Token(user), chromedp.ByQuery),
		chromedp.Click("#sign-in", chromedp.ByQuery),
		chromedp.WaitVisible("#viewer", chromedp.ByQuery))
	var who string
	wt.run("read the viewer", chromedp.Text("#viewer", &who, chromedp.ByQuery))
	if who != user {
		wt.t.Fatalf("signed in as %q, want %s", who, user)
	}
}

// pushDraft is the terminal part: alice clones the catalog, labels the
// basens namespace on a new draft branch and pushes it.
func (wt *walk) pushDraft(branch, label string) {
	wt.t.Helper()
	dir, err := wt.w.Clone(wt.ctx, "alice", "acme/catalog", strings.ReplaceAll(branch, "/", "-"))
	if err != nil {
		wt.t.Fatal(err)
	}
	if _, err := wt.w.Git(wt.ctx, dir, "switch", "-q", "-c", branch); err != nil {
		wt.t.Fatal(err)
	}
	ns := filepath.Join(dir, "basens", "namespace.yaml")
	b, err := os.ReadFile(ns)
	if err != nil {
		wt.t.Fatal(err)
	}
	text := string(b)
	if strings.Contains(text, "  labels:\n") {
		text = strings.Replace(text, "  labels:\n", "  labels:\n    "+label+"\n", 1)
	} else {
		text = strings.Replace(text, "metadata:\n", "metadata:\n  labels:\n    "+label+"\n", 1)
	}
	if err := os.WriteFile(ns, []byte(text), 0o644); err != nil {
		wt.t.Fatal(err)
	}
	for _, args := range [][]string{{"commit", "-qam", "basens: " + label}, {"push", "-q", "-u", "origin", "HEAD"}} {
		if _, err := wt.w.Git(wt.ctx, dir, args...); err != nil {
			wt.t.Fatal(err)
		}
	}
	wt.settle()
}

// openPull opens a pull request of branch on the repository's page and
// answers its page's address.
func (wt *walk) openPull(repo, branch, title string) string {
	wt.t.Helper()
	var at string
	wt.run("open a pull request of "+branch,
		chromedp.Navigate(wt.web+"/"+repo),
		chromedp.SetValue(`#new-pull-form select[name="head"]`, branch, chromedp.ByQuery),
		chromedp.SendKeys(`#new-pull-form input[name="title"]`, title, chromedp.ByQuery),
		chromedp.Click("#open-pull", chromedp.ByQuery),
		chromedp.WaitVisible("#checks", chromedp.ByQuery),
		chromedp.Location(&at))
	wt.settle()
	return at
}

func (wt *walk) openIssue(repo, title string) string {
	wt.t.Helper()
	var at string
	wt.run("open an issue in "+repo,
		chromedp.Navigate(wt.web+"/"+repo),
		chromedp.SendKeys(`#new-issue-form input[name="title"]`, title, chromedp.ByQuery),
		chromedp.Click("#open-issue", chromedp.ByQuery),
		chromedp.WaitVisible("#conversation", chromedp.ByQuery),
		chromedp.Location(&at))
	return at
}

func (wt *walk) comment(page, body string) {
	wt.t.Helper()
	wt.run("comment "+body,
		chromedp.Navigate(page),
		chromedp.SendKeys(`#comment-form textarea[name="body"]`, body, chromedp.ByQuery),
		chromedp.Click("#comment", chromedp.ByQuery),
		chromedp.WaitVisible("#notice", chromedp.ByQuery))
	wt.settle()
}

// click presses a button of the page and waits for porchbot.
func (wt *walk) click(page, button string) {
	wt.t.Helper()
	var notice string
	wt.run("press "+button+" on "+page,
		chromedp.Navigate(page),
		chromedp.Click(button, chromedp.ByQuery),
		chromedp.WaitVisible("#notice", chromedp.ByQuery),
		chromedp.Text("#notice", &notice, chromedp.ByQuery))
	if strings.Contains(notice, "failed") {
		wt.t.Fatalf("%s on %s: %s", button, page, notice)
	}
	wt.settle()
}

// want opens page and requires every word in the text of selector.
func (wt *walk) want(page, selector string, words ...string) {
	wt.t.Helper()
	var text string
	wt.run("read "+selector+" of "+page, chromedp.Navigate(page), chromedp.Text(selector, &text, chromedp.ByQuery))
	for _, w := range words {
		if !strings.Contains(text, w) {
			wt.t.Fatalf("%s of %s lacks %q:\n%s", selector, page, w, text)
		}
	}
}

// pullOf is the page of the open pull request of head in repo, which
// porchbot opened (found as a user finds it: on the repository's page).
func (wt *walk) pullOf(repo, head string) string {
	wt.t.Helper()
	owner, name, _ := strings.Cut(repo, "/")
	pulls, _, err := wt.w.Client("alice").PullRequests.List(wt.ctx, owner, name, &github.PullRequestListOptions{State: "open", Head: owner + ":" + head})
	if err != nil || len(pulls) != 1 {
		wt.t.Fatalf("open pull requests of %s in %s: %v %v", head, repo, pulls, err)
	}
	return pulls[0].GetHTMLURL()
}
