package lifecycle_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/gitstore"
)

// harness is a local forge with the standard cast (forgetest) and the
// bot's real clients: an App-authenticated go-github, a go-git store, and
// a lifecycle.Opener over them. Shared by every lifecycle test file.
type harness struct {
	env     *forgetest.Env
	clients *ghclient.Clients
	store   *gitstore.Store
	opener  *lifecycle.Opener
	log     *logrus.Logger
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	rig := lifecycletest.New(t)
	return &harness{env: rig.Env, clients: rig.Clients, store: rig.Store, opener: rig.Opener, log: rig.Log}
}

// catalog is the standard repository the cast works in.
func (h *harness) catalog() lifecycle.Repo {
	return lifecycle.Repo{Owner: "acme", Name: "catalog", InstallationID: h.env.Installation.ID, DefaultBranch: "main"}
}

// seed commits files (the whole tree) on main as alice; no webhooks.
func (h *harness) seed(t *testing.T, files map[string][]byte) string {
	t.Helper()
	alice, _ := h.env.Forge.Account("alice")
	sha, err := h.env.Forge.CommitFiles("acme/catalog", "main", files, "seed", alice)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// open opens a session on acme/catalog as the App's installation.
func (h *harness) open(t *testing.T) *lifecycle.Session {
	t.Helper()
	s, err := h.opener.Open(context.Background(), h.catalog())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// user is a go-github client of a cast member (forgetest.AliceToken, ...).
func (h *harness) user(token string) *github.Client { return h.env.Client(token) }
