package forge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestPushWebhooksFromGit: a git push sends push webhooks for every ref
// it changes, create before push for new refs, delete after push for
// deleted ones, signed and decodable by go-github.
func TestPushWebhooksFromGit(t *testing.T) {
	env := forgetest.New(t)
	hooks := gtNewHooks(t, env)
	base := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})
	g := gtNewGit(t, "alice")
	g.run("clone", "--quiet", gtURL(env, env.CatalogRepo, "alice", forgetest.AliceToken), ".")

	// An update of main with two commits.
	first := g.commit("Add upf", map[string]string{"network/upf/Kptfile": "kind: Kptfile\n"})
	g.run("rm", "--quiet", "README.md")
	second := g.commit("Edit upf, drop README", map[string]string{"network/upf/Kptfile": "kind: Kptfile\nx: 1\n"})
	g.run("push", "--quiet", "origin", "main")
	hs := hooks.take(t, env)
	if got := gtEvents(hs); strings.Join(got, ",") != "push:refs/heads/main" {
		t.Fatalf("events %v", got)
	}
	p := hs[0].Payload.(*github.PushEvent)
	if p.GetBefore() != base || p.GetAfter() != second || p.GetCreated() || p.GetDeleted() || p.GetForced() ||
		len(p.Commits) != 2 || p.Commits[0].GetID() != first || p.Commits[1].GetID() != second ||
		p.GetHeadCommit().GetID() != second || p.GetHeadCommit().GetMessage() != "Edit upf, drop README" {
		t.Fatalf("push %+v", p)
	}
	c0, c1 := p.Commits[0], p.Commits[1]
	if strings.Join(c0.Added, ",") != "network/upf/Kptfile" || len(c0.Modified)+len(c0.Removed) != 0 ||
		strings.Join(c1.Modified, ",") != "network/upf/Kptfile" || strings.Join(c1.Removed, ",") != "README.md" ||
		!c0.GetDistinct() || c0.GetAuthor().GetLogin() != "alice" || c0.GetAuthor().GetEmail() != "alice@users.noreply.forge.local" ||
		c0.GetCommitter().GetName() != "alice" || c0.GetTreeID() == "" || c0.GetTimestamp().IsZero() ||
		!strings.HasSuffix(c0.GetURL(), "/acme/catalog/commit/"+first) {
		t.Fatalf("commits %+v %+v", c0, c1)
	}
	if p.GetPusher().GetName() != "alice" || p.GetPusher().GetEmail() == "" || p.GetSender().GetLogin() != "alice" ||
		p.GetInstallation().GetID() != env.Installation.ID || p.GetOrganization().GetLogin() != "acme" ||
		p.GetRepo().GetFullName() != "acme/catalog" || p.GetRepo().GetOrganization() != "acme" ||
		p.GetRepo().GetPushedAt().IsZero() || p.GetRepo().GetCreatedAt().IsZero() || p.GetRepo().GetOwner().GetLogin() != "acme" ||
		p.GetRepo().GetDefaultBranch() != "main" || !strings.Contains(p.GetCompare(), "/compare/") {
		t.Fatalf("push envelope %+v", p)
	}

	// A new branch from main with one commit, and a tag: create, push each.
	g.run("checkout", "--quiet", "-b", "drafts/network/upf/w1")
	draft := g.commit("Draft", map[string]string{"network/upf/cm.yaml": "a: 1\n"})
	g.run("tag", "network/upf/v1", "main")
	g.run("push", "--quiet", "origin", "drafts/network/upf/w1", "network/upf/v1")
	hs = hooks.take(t, env)
	want := "create:branch:drafts/network/upf/w1,push:refs/heads/drafts/network/upf/w1,create:tag:network/upf/v1,push:refs/tags/network/upf/v1"
	if got := gtEvents(hs); strings.Join(got, ",") != want {
		t.Fatalf("events %v, want %s", got, want)
	}
	cr := hs[0].Payload.(*github.CreateEvent)
	if cr.GetMasterBranch() != "main" || cr.GetPusherType() != "user" || cr.GetSender().GetLogin() != "alice" ||
		cr.GetInstallation().GetID() != env.Installation.ID || cr.GetOrg().GetLogin() != "acme" || cr.GetRepo().GetFullName() != "acme/catalog" {
		t.Fatalf("create %+v", cr)
	}
	np := hs[1].Payload.(*github.PushEvent)
	// Only the commit no other ref had.
	if !np.GetCreated() || np.GetBefore() != strings.Repeat("0", 40) || len(np.Commits) != 1 || np.Commits[0].GetID() != draft ||
		np.GetHeadCommit().GetID() != draft {
		t.Fatalf("new branch push %+v", np)
	}
	tp := hs[3].Payload.(*github.PushEvent)
	if !tp.GetCreated() || len(tp.Commits) != 0 || tp.GetHeadCommit().GetID() != second || tp.GetBaseRef() != "refs/heads/main" {
		t.Fatalf("tag push %+v", tp)
	}

	// A forced update and a deletion in one push.
	g.run("checkout", "--quiet", "main")
	g.run("reset", "--quiet", "--hard", first)
	g.run("push", "--quiet", "--force", "origin", "main", ":drafts/network/upf/w1")
	hs = hooks.take(t, env)
	want = "push:refs/heads/drafts/network/upf/w1,delete:branch:drafts/network/upf/w1,push:refs/heads/main"
	if got := gtEvents(hs); strings.Join(got, ",") != want {
		t.Fatalf("events %v, want %s", got, want)
	}
	dp := hs[0].Payload.(*github.PushEvent)
	if !dp.GetDeleted() || dp.GetAfter() != strings.Repeat("0", 40) || len(dp.Commits) != 0 || dp.HeadCommit != nil {
		t.Fatalf("deletion push %+v", dp)
	}
	fp := hs[2].Payload.(*github.PushEvent)
	if !fp.GetForced() || fp.GetBefore() != second || fp.GetAfter() != first || len(fp.Commits) != 0 || fp.GetHeadCommit().GetID() != first {
		t.Fatalf("forced push %+v", fp)
	}
	for _, h := range hs {
		if h.Event == "delete" {
			d := h.Payload.(*github.DeleteEvent)
			if d.GetPusherType() != "user" || d.GetSender().GetLogin() != "alice" || d.GetRepo().GetFullName() != "acme/catalog" {
				t.Fatalf("delete %+v", d)
			}
		}
	}
}

// TestPushWebhooksFromREST: ref changes through the git refs API send the
// same webhooks, from whoever made them.
func TestPushWebhooksFromREST(t *testing.T) {
	env := forgetest.New(t)
	hooks := gtNewHooks(t, env)
	ctx := context.Background()
	base := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})
	next := gtSeed(t, env, "main", map[string]string{"README.md": "# next\n"})
	bot := env.Client(env.InstallationToken(t))
	if _, _, err := bot.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/tags/network/upf/v1"),
		Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bot.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/drafts/w1"),
		Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bot.Git.UpdateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/drafts/w1"),
		Object: &github.GitObject{SHA: github.String(next)}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.Git.DeleteRef(ctx, gtOwner, gtName, "tags/network/upf/v1"); err != nil {
		t.Fatal(err)
	}
	hs := hooks.take(t, env)
	want := "create:tag:network/upf/v1,push:refs/tags/network/upf/v1,create:branch:drafts/w1,push:refs/heads/drafts/w1," +
		"push:refs/heads/drafts/w1,push:refs/tags/network/upf/v1,delete:tag:network/upf/v1"
	if got := gtEvents(hs); strings.Join(got, ",") != want {
		t.Fatalf("events %v\nwant %s", got, want)
	}
	up := hs[4].Payload.(*github.PushEvent)
	if up.GetSender().GetLogin() != "porchbot[bot]" || up.GetSender().GetType() != "Bot" || up.GetPusher().GetName() != "porchbot[bot]" ||
		up.GetBefore() != base || up.GetAfter() != next || len(up.Commits) != 1 || up.Commits[0].GetID() != next ||
		up.Commits[0].GetDistinct() { // main had it already
		t.Fatalf("update push %+v", up)
	}
	nb := hs[3].Payload.(*github.PushEvent)
	if nb.GetBaseRef() != "" && nb.GetBaseRef() != "refs/heads/main" || len(nb.Commits) != 0 || nb.GetHeadCommit().GetID() != base {
		t.Fatalf("new branch on an old commit %+v", nb)
	}
}

// TestPushWebhooksManyTags: as GitHub, no push or create webhooks for
// tags when more than three are pushed at once.
func TestPushWebhooksManyTags(t *testing.T) {
	env := forgetest.New(t)
	hooks := gtNewHooks(t, env)
	gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})
	g := gtNewGit(t, "alice")
	g.run("clone", "--quiet", gtURL(env, env.CatalogRepo, "alice", forgetest.AliceToken), ".")
	for i := 1; i <= 3; i++ {
		g.run("tag", fmt.Sprintf("a%d", i))
	}
	g.run("push", "--quiet", "origin", "--tags")
	if got := gtEvents(hooks.take(t, env)); len(got) != 6 {
		t.Fatalf("three tags: %v", got)
	}
	for i := 1; i <= 4; i++ {
		g.run("tag", fmt.Sprintf("b%d", i))
	}
	g.commit("more", map[string]string{"x": "x"})
	g.run("push", "--quiet", "origin", "--tags", "main")
	if got := gtEvents(hooks.take(t, env)); strings.Join(got, ",") != "push:refs/heads/main" {
		t.Fatalf("four tags and a branch: %v", got)
	}
}

// gtKeyPaths lists the JSON key paths of v (objects by key, arrays by
// their first element).
func gtKeyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := prefix + "." + k
			out[p] = true
			gtKeyPaths(e, p, out)
		}
	case []any:
		if len(x) > 0 {
			gtKeyPaths(x[0], prefix+"[]", out)
		}
	}
}

// TestPushWebhooksCarryGitHubsFields compares the JSON keys of the
// forge's push, create and delete payloads with GitHub's examples: every
// key they have, the forge's have.
func TestPushWebhooksCarryGitHubsFields(t *testing.T) {
	dir := fidPayloadDir
	if _, err := os.Stat(dir); err != nil {
		t.Skip("GitHub's example payloads are not here:", err)
	}
	env := forgetest.New(t)
	hooks := gtNewHooks(t, env)
	g := gtNewGit(t, "alice")
	g.run("init", "--quiet", "--initial-branch=main")
	g.run("remote", "add", "origin", gtURL(env, env.CatalogRepo, "alice", forgetest.AliceToken))
	g.commit("Initial commit", map[string]string{"README.md": "# catalog\n"})
	g.run("tag", "simple-tag")
	g.run("push", "--quiet", "origin", "main", "simple-tag")
	g.run("push", "--quiet", "origin", ":simple-tag")
	ours := map[string][]map[string]bool{}
	for _, h := range hooks.take(t, env) {
		var v any
		if err := json.Unmarshal(h.Body, &v); err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		gtKeyPaths(v, "", keys)
		ours[h.Event] = append(ours[h.Event], keys)
	}
	for _, event := range []string{"push", "create", "delete"} {
		files, _ := filepath.Glob(filepath.Join(dir, event, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no examples of %s", event)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			theirs := map[string]bool{}
			gtKeyPaths(v, "", theirs)
			// The closest of ours must have every key of theirs.
			var best []string
			for i, keys := range ours[event] {
				var missing []string
				for k := range theirs {
					if !keys[k] {
						missing = append(missing, k)
					}
				}
				if i == 0 || len(missing) < len(best) {
					best = missing
				}
			}
			if len(ours[event]) == 0 {
				t.Fatalf("the forge sent no %s", event)
			}
			sort.Strings(best)
			if len(best) > 0 {
				t.Errorf("%s: the forge's %s payloads lack %v", filepath.Base(file), event, best)
			}
		}
	}
}
