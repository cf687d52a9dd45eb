package protect_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/protect"
)

// TestProtectAddsAndNeverTakesAway: on the forge, protect adds porchbot's
// checks to a branch's required checks, keeps the others, rebinds a
// porchbot check another App made required, changes nothing the second
// time, and leaves a branch protected without required checks alone.
func TestProtectAddsAndNeverTakesAway(t *testing.T) {
	ctx := context.Background()
	env := forgetest.New(t)
	alice, _ := env.Forge.Account("alice")
	if _, err := env.Forge.CommitFiles(env.CatalogRepo, "main", map[string][]byte{"README.md": []byte("hi\n")}, "seed", alice); err != nil {
		t.Fatal(err)
	}
	api := env.Client(forgetest.AliceToken).Repositories
	opts := protect.Options{AppID: forgetest.AppID}

	if err := env.Forge.Protect(env.CatalogRepo, "main", &forge.BranchProtection{
		Checks: []forge.RequiredCheck{{Context: "ci"}, {Context: "porchbot/render", AppID: 999}}}); err != nil {
		t.Fatal(err)
	}
	out, err := protect.Protect(ctx, api, "acme", "catalog", "main", opts)
	if err != nil || out.Created || strings.Join(out.Added, ",") != "porchbot/approval,porchbot/render" ||
		strings.Join(out.Required, ",") != "ci,porchbot/approval,porchbot/render" {
		t.Fatalf("protect over ci and another App's render: %+v, %v", out, err)
	}
	got, _, err := api.GetBranchProtection(ctx, "acme", "catalog", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range *got.GetRequiredStatusChecks().Checks {
		if strings.HasPrefix(c.Context, "porchbot/") && c.GetAppID() != forgetest.AppID || c.Context == "ci" && c.AppID != nil {
			t.Fatalf("required %s bound to %d", c.Context, c.GetAppID())
		}
	}
	if again, err := protect.Protect(ctx, api, "acme", "catalog", "main", opts); err != nil || len(again.Added) != 0 {
		t.Fatalf("second run: %+v, %v", again, err)
	}

	if err := env.Forge.Protect(env.CatalogRepo, "main", &forge.BranchProtection{EnforceAdmins: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := protect.Protect(ctx, api, "acme", "catalog", "main", opts); !errors.Is(err, protect.ErrProtectedWithoutChecks) {
		t.Fatalf("a protection without required checks: %v", err)
	}
	if got, _, err := api.GetBranchProtection(ctx, "acme", "catalog", "main"); err != nil || got.GetRequiredStatusChecks() != nil {
		t.Fatalf("that protection was changed: %+v, %v", got.GetRequiredStatusChecks(), err)
	}
}
