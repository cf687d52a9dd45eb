package forge_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestRepoTopics: GitHub's topics endpoints. An admin replaces the topics
// (lowercased, duplicates folded); a writer may read them and not replace
// them; invalid names and more than 20 are refused with 422 and change
// nothing; the installation repositories list carries them.
func TestRepoTopics(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	alice, bob := env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken)
	got, _, err := alice.Repositories.ReplaceAllTopics(ctx, "acme", "catalog", []string{"Edge", "edge", "5g-core"})
	if err != nil || !slices.Equal(got, []string{"edge", "5g-core"}) {
		t.Fatalf("replace: %v %v", got, err)
	}
	if got, _, err := bob.Repositories.ListAllTopics(ctx, "acme", "catalog"); err != nil || !slices.Equal(got, []string{"edge", "5g-core"}) {
		t.Fatalf("list as bob: %v %v", got, err)
	}
	_, resp, err := bob.Repositories.ReplaceAllTopics(ctx, "acme", "catalog", []string{"mine"})
	chkWantStatus(t, "writer replaces", resp, err, http.StatusForbidden)
	_, resp, err = alice.Repositories.ReplaceAllTopics(ctx, "acme", "catalog", []string{"-bad"})
	chkWantStatus(t, "invalid topic", resp, err, http.StatusUnprocessableEntity)
	many := make([]string, 21)
	for i := range many {
		many[i] = "t" + string(rune('a'+i))
	}
	_, resp, err = alice.Repositories.ReplaceAllTopics(ctx, "acme", "catalog", many)
	chkWantStatus(t, "21 topics", resp, err, http.StatusUnprocessableEntity)
	inst := env.Client(env.InstallationToken(t))
	list, _, err := inst.Apps.ListRepos(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Repositories {
		if r.GetFullName() == "acme/catalog" && !slices.Equal(r.Topics, []string{"edge", "5g-core"}) {
			t.Fatalf("installation list: topics %v", r.Topics)
		}
	}
	if _, _, err := alice.Repositories.ReplaceAllTopics(ctx, "acme", "catalog", []string{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := alice.Repositories.ListAllTopics(ctx, "acme", "catalog"); len(got) != 0 {
		t.Fatalf("cleared: %v", got)
	}
}
