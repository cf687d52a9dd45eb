package forge_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// appJWT signs the App's JWT as GitHub asks: RS256, iss = App id, iat a
// little in the past, exp at most ten minutes after.
func appJWT(t *testing.T, key *rsa.PrivateKey, iss string, lifetime time.Duration) string {
	t.Helper()
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer:    iss,
		IssuedAt:  jwt.NewNumericDate(now.Add(-30 * time.Second)),
		ExpiresAt: jwt.NewNumericDate(now.Add(-30*time.Second + lifetime)),
	})
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAppEndpoints(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	key, err := jwt.ParseRSAPrivateKeyFromPEM(env.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	appID := strconv.FormatInt(forgetest.AppID, 10)
	app := env.Client(appJWT(t, key, appID, 10*time.Minute))

	got, _, err := app.Apps.Get(ctx, "")
	if err != nil || got.GetID() != forgetest.AppID || got.GetSlug() != "porchbot" || got.GetPermissions().GetChecks() != "write" {
		t.Fatalf("GET /app: %v %v", got, err)
	}
	insts, _, err := app.Apps.ListInstallations(ctx, nil)
	if err != nil || len(insts) != 1 || insts[0].GetID() != env.Installation.ID || insts[0].GetAccount().GetLogin() != "acme" ||
		insts[0].GetAppID() != forgetest.AppID {
		t.Fatalf("installations: %v %v", insts, err)
	}
	inst, _, err := app.Apps.GetInstallation(ctx, env.Installation.ID)
	if err != nil || inst.GetTargetType() != "Organization" {
		t.Fatalf("installation: %v %v", inst, err)
	}
	byRepo, _, err := app.Apps.FindRepositoryInstallation(ctx, "acme", "catalog")
	if err != nil || byRepo.GetID() != env.Installation.ID {
		t.Fatalf("repository installation: %v %v", byRepo, err)
	}
	tok, resp, err := app.Apps.CreateInstallationToken(ctx, env.Installation.ID, nil)
	if err != nil || resp.StatusCode != http.StatusCreated || tok.GetToken() == "" || tok.ExpiresAt == nil {
		t.Fatalf("access token: %v %v", tok, err)
	}
	bot := env.Client(tok.GetToken())
	repo, _, err := bot.Repositories.Get(ctx, "acme", "catalog")
	if err != nil || !repo.GetPermissions()["push"] || repo.GetPermissions()["admin"] {
		t.Fatalf("repository with the installation token: %v %v", repo, err)
	}
	repos, _, err := bot.Apps.ListRepos(ctx, nil)
	if err != nil || repos.GetTotalCount() != 1 {
		t.Fatalf("installation repositories: %v %v", repos, err)
	}
	_, resp, err = app.Apps.CreateInstallationToken(ctx, 987654, nil)
	chkWantStatus(t, "unknown installation", resp, err, http.StatusNotFound)

	// Refused: another key, another issuer, too long a lifetime, non-JWT callers.
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*github.Client{
		"another key":      env.Client(appJWT(t, other, appID, 10*time.Minute)),
		"another issuer":   env.Client(appJWT(t, key, "1", 10*time.Minute)),
		"expired":          env.Client(appJWT(t, key, appID, 20*time.Second)),
		"too long":         env.Client(appJWT(t, key, appID, time.Hour)),
		"user token":       env.Client(forgetest.AliceToken),
		"installation tok": bot,
	} {
		_, resp, err := c.Apps.Get(ctx, "")
		chkWantStatus(t, name, resp, err, http.StatusUnauthorized)
	}
}

func TestInstallationEvents(t *testing.T) {
	env := forgetest.New(t)
	hooks := newFidHookRecorder(t, env)
	ctx := context.Background()
	if err := env.Forge.EmitInstallation("created", "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	if err := env.Forge.EmitInstallationRepositories("removed", "acme", nil, []string{"acme/catalog"}, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := env.Forge.EmitInstallation("created", "mallory", "alice"); err == nil {
		t.Fatal("EmitInstallation for an account without the App succeeded")
	}
	if err := env.Forge.EmitInstallationRepositories("moved", "acme", nil, nil, "alice"); err == nil {
		t.Fatal("a bad action was accepted")
	}
	// A repository created on the installed account is announced.
	if _, _, err := env.Client(forgetest.AliceToken).Repositories.Create(ctx, "acme", &github.Repository{Name: github.String("blueprints")}); err != nil {
		t.Fatal(err)
	}
	// ... one on another account is not.
	if _, _, err := env.Client(forgetest.MalloryToken).Repositories.Create(ctx, "", &github.Repository{Name: github.String("mine")}); err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)

	if n := len(hooks.all()); n != 3 {
		t.Fatalf("deliveries: %d, want 3", n)
	}
	for _, c := range []fidelityCase{{"installation", "created"}, {"installation_repositories", "removed"}, {"installation_repositories", "added"}} {
		ds := hooks.of(c.event, c.action)
		if len(ds) != 1 {
			t.Fatalf("%s %s: %d deliveries", c.event, c.action, len(ds))
		}
		miss, err := fidCompare(t, ds[0], fidExamplesFor(t, c.event, c.action))
		if err != nil {
			t.Fatal(err)
		}
		if len(miss) > 0 {
			t.Errorf("%s %s lacks:\n  %s", c.event, c.action, strings.Join(miss, "\n  "))
		}
	}
	ev, _ := github.ParseWebHook("installation_repositories", hooks.of("installation_repositories", "added")[0].body)
	added := ev.(*github.InstallationRepositoriesEvent)
	if len(added.RepositoriesAdded) != 1 || added.RepositoriesAdded[0].GetFullName() != "acme/blueprints" ||
		added.GetInstallation().GetID() != env.Installation.ID || added.GetRepositorySelection() != "all" ||
		added.GetSender().GetLogin() != "alice" || added.RepositoriesRemoved == nil {
		t.Fatalf("added: %s", github.Stringify(added))
	}
	ev, _ = github.ParseWebHook("installation", hooks.of("installation", "created")[0].body)
	if inst := ev.(*github.InstallationEvent); len(inst.Repositories) != 1 || inst.GetInstallation().GetAccount().GetLogin() != "acme" {
		t.Fatalf("installation created: %s", github.Stringify(inst))
	}
}
