package forge_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestReleases(t *testing.T) {
	env := forgetest.New(t)
	hooks := newFidHookRecorder(t, env)
	ctx := context.Background()
	alice := env.Client(forgetest.AliceToken)
	first := chkSeedCommit(t, env, "main", map[string]string{"network/upf/Kptfile": "v: 1\n"})

	// A new tag is created at target_commitish, as GitHub does.
	rel, resp, err := alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("network/upf/v1"), TargetCommitish: github.String("main"),
		Name: github.String("network/upf v1"), Body: github.String("first"),
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if rel.GetTagName() != "network/upf/v1" || rel.GetDraft() || rel.Draft == nil || rel.PublishedAt == nil ||
		rel.GetAuthor().GetLogin() != "alice" || rel.GetTargetCommitish() != "main" || rel.GetUploadURL() == "" {
		t.Fatalf("release: %s", github.Stringify(rel))
	}
	if _, err := env.Forge.CheckRunsFor(env.CatalogRepo, "refs/tags/network/upf/v1"); err != nil {
		t.Fatalf("tag not created: %v", err)
	}
	_, resp, err = alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{TagName: github.String("network/upf/v1")})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || resp.StatusCode != http.StatusUnprocessableEntity || len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
		t.Fatalf("duplicate: %v", err)
	}
	_, resp, err = alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("x/v1"), TargetCommitish: github.String("no-such-branch")})
	chkWantStatus(t, "unknown target", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{TagName: github.String("bad..tag")})
	chkWantStatus(t, "invalid tag", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = env.Client(forgetest.CarolToken).Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{TagName: github.String("c/v1")})
	chkWantStatus(t, "reader creates", resp, err, http.StatusForbidden)

	// Generated notes list the commits since the previous tag of the family.
	chkSeedCommit(t, env, "main", map[string]string{"network/upf/Kptfile": "v: 2\n"})
	v2, _, err := alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("network/upf/v2"), GenerateReleaseNotes: github.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if v2.GetName() != "network/upf/v2" || !strings.Contains(v2.GetBody(), "seed main by @alice") ||
		strings.Count(v2.GetBody(), "\n* ") != 1 || !strings.Contains(v2.GetBody(), "compare/network/upf/v1...network/upf/v2") {
		t.Fatalf("generated notes:\n%s", v2.GetBody())
	}
	notes, _, err := alice.Repositories.GenerateReleaseNotes(ctx, "acme", "catalog", &github.GenerateNotesOptions{
		TagName: "network/upf/v3", PreviousTagName: github.String("network/upf/v1")})
	if err != nil || notes.Name != "network/upf/v3" || !strings.Contains(notes.Body, "compare/network/upf/v1...network/upf/v3") {
		t.Fatalf("generate-notes: %+v %v", notes, err)
	}
	// A prerelease and a draft.
	if _, _, err := alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("network/upf/v3-rc"), Prerelease: github.Bool(true), TargetCommitish: github.String(first)}); err != nil {
		t.Fatal(err)
	}
	draft, _, err := env.Client(forgetest.BobToken).Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("network/smf/v1"), Draft: github.Bool(true)})
	if err != nil || !draft.GetDraft() || draft.PublishedAt != nil {
		t.Fatalf("draft: %v %v", draft, err)
	}
	if _, err := env.Forge.CheckRunsFor(env.CatalogRepo, "refs/tags/network/smf/v1"); err == nil {
		t.Fatal("a draft created its tag")
	}

	// Reads: by tag (slashes), latest (not the prerelease), list, drafts hidden from readers.
	carol := env.Client(forgetest.CarolToken)
	got, _, err := carol.Repositories.GetReleaseByTag(ctx, "acme", "catalog", "network/upf/v1")
	if err != nil || got.GetID() != rel.GetID() {
		t.Fatalf("by tag: %v %v", got, err)
	}
	_, resp, err = carol.Repositories.GetReleaseByTag(ctx, "acme", "catalog", "network/smf/v1")
	chkWantStatus(t, "draft by tag", resp, err, http.StatusNotFound)
	latest, _, err := carol.Repositories.GetLatestRelease(ctx, "acme", "catalog")
	if err != nil || latest.GetTagName() != "network/upf/v2" {
		t.Fatalf("latest: %v %v", latest, err)
	}
	if got, _, err := carol.Repositories.GetRelease(ctx, "acme", "catalog", rel.GetID()); err != nil || got.GetBody() != "first" {
		t.Fatalf("by id: %v %v", got, err)
	}
	_, resp, err = carol.Repositories.GetRelease(ctx, "acme", "catalog", draft.GetID())
	chkWantStatus(t, "reader gets draft", resp, err, http.StatusNotFound)
	list, _, err := carol.Repositories.ListReleases(ctx, "acme", "catalog", nil)
	if err != nil || len(list) != 3 {
		t.Fatalf("reader list: %d %v", len(list), err)
	}
	page1, resp, err := alice.Repositories.ListReleases(ctx, "acme", "catalog", &github.ListOptions{PerPage: 3})
	if err != nil || len(page1) != 3 || resp.NextPage != 2 || page1[0].GetTagName() != "network/smf/v1" {
		t.Fatalf("writer list page 1: %d next %d %v", len(page1), resp.NextPage, err)
	}
	if link := resp.Header.Get("Link"); !strings.Contains(link, "<"+env.Forge.APIURL()+"repos/acme/catalog/releases?page=2&per_page=3>; rel=\"next\"") {
		t.Errorf("Link: %s", link)
	}
	page2, _, err := alice.Repositories.ListReleases(ctx, "acme", "catalog", &github.ListOptions{PerPage: 3, Page: 2})
	if err != nil || len(page2) != 1 || page2[0].GetTagName() != "network/upf/v1" {
		t.Fatalf("writer list page 2: %v %v", page2, err)
	}

	// Publishing the draft creates its tag and tells the App.
	pub, _, err := alice.Repositories.EditRelease(ctx, "acme", "catalog", draft.GetID(), &github.RepositoryRelease{Draft: github.Bool(false)})
	if err != nil || pub.GetDraft() || pub.PublishedAt == nil {
		t.Fatalf("publish draft: %v %v", pub, err)
	}
	if _, err := env.Forge.CheckRunsFor(env.CatalogRepo, "refs/tags/network/smf/v1"); err != nil {
		t.Fatalf("published draft has no tag: %v", err)
	}
	if _, err := alice.Repositories.DeleteRelease(ctx, "acme", "catalog", pub.GetID()); err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)

	for _, c := range []struct {
		action string
		n      int
	}{{"created", 4}, {"published", 4}, {"released", 3}, {"prereleased", 1}, {"deleted", 1}} {
		if got := len(hooks.of("release", c.action)); got != c.n {
			t.Errorf("release %s deliveries: %d, want %d", c.action, got, c.n)
		}
	}
	// Deliveries come in GitHub's order: created, then published, released.
	var order []string
	for _, d := range hooks.of("release", "") {
		order = append(order, d.action)
	}
	if strings.Join(order[:3], ",") != "created,published,released" {
		t.Errorf("order: %v", order)
	}
	// Every release payload has what GitHub's real ones have.
	for _, c := range []fidelityCase{{"release", "created"}, {"release", "published"}, {"release", "released"}, {"release", "prereleased"}} {
		d := hooks.of(c.event, c.action)[0]
		miss, err := fidCompare(t, d, fidExamplesFor(t, c.event, c.action))
		if err != nil {
			t.Fatal(err)
		}
		if len(miss) > 0 {
			t.Errorf("release %s lacks:\n  %s", c.action, strings.Join(miss, "\n  "))
		}
		ev, _ := github.ParseWebHook(d.event, d.body)
		re := ev.(*github.ReleaseEvent)
		if re.GetRelease().GetTagName() != "network/upf/v1" && c.action != "prereleased" || re.GetInstallation().GetID() != env.Installation.ID {
			t.Errorf("release %s: %s", c.action, github.Stringify(re))
		}
	}
	if rs := env.Forge.Releases(env.CatalogRepo); len(rs) != 3 {
		t.Errorf("Forge.Releases: %d", len(rs))
	}
}
