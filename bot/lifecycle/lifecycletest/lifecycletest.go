// Package lifecycletest is a local forge with the standard cast
// (internal/forge/forgetest) and the bot's real clients over it: an
// App-authenticated go-github, a go-git store, and a core.Opener.
// Tests of the lifecycle steps and of the commands share it.
package lifecycletest

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/revrecord"
)

// Rig is a running forge and the bot's clients over it.
type Rig struct {
	Env     *forgetest.Env
	Clients *ghclient.Clients
	Store   *gitstore.Store
	Opener  *core.Opener
	Log     *logrus.Logger
}

// Limits are the permissive server bounds the rig's Opener applies.
var Limits = config.ServerLimits{MinApprovals: 0, MaxPRConcurrentLimit: 100, AllowSelfApproval: true, AllowAutomerge: true}

// New starts a rig; everything stops when the test ends.
func New(t testing.TB) *Rig {
	t.Helper()
	env := forgetest.New(t)
	log := logrus.New()
	log.SetOutput(io.Discard)
	topts := ghclient.DefaultTransportOptions()
	topts.MutationSpacing = 0
	clients, err := ghclient.NewClients(ghclient.ClientsOptions{BaseURL: env.Forge.BaseURL(),
		App:              &ghclient.AppCredentials{AppID: forgetest.AppID, PrivateKeyPEM: env.PrivateKeyPEM},
		TransportOptions: topts, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	store, err := gitstore.New(gitstore.Options{Dir: t.TempDir(), Logger: log, Auth: gitstore.InstallationAuth(clients)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	opener := &core.Opener{Clients: ghclient.HubClients{Clients: clients}, Git: store, GitURL: clients.URLs().GitURL,
		Configs: &config.Cache{}, Limits: Limits, Logger: log}
	return &Rig{Env: env, Clients: clients, Store: store, Opener: opener, Log: log}
}

// RevisionTag makes tag ("<pkg>/v<N>") on sha in owner/repo as porchbot
// would have published it (an annotated tag carrying a record signed with
// the rig's key, core.RecordKey(nil)), through gh's REST calls: the
// fixture of an earlier revision.
func RevisionTag(ctx context.Context, gh *github.Client, owner, repo, tag, sha string) error {
	return RevisionTagKey(ctx, gh, core.RecordKey(nil), owner, repo, tag, sha)
}

// RevisionTagKey is RevisionTag signed with key (a server's
// core.RecordKey of its webhook secret).
func RevisionTagKey(ctx context.Context, gh *github.Client, key []byte, owner, repo, tag, sha string) error {
	pkg, n, ok := packages.ParseTagName(tag)
	if !ok {
		return fmt.Errorf("%q is not a revision tag", tag)
	}
	rec := revrecord.Sign(key, revrecord.Record{Repo: owner + "/" + repo, Package: pkg, Revision: n, Commit: sha})
	obj, _, err := gh.Git.CreateTag(ctx, owner, repo, &github.Tag{Tag: github.String(tag), Message: github.String(revrecord.Message(rec)),
		Object: &github.GitObject{Type: github.String("commit"), SHA: github.String(sha)},
		Tagger: &github.CommitAuthor{Name: github.String(core.DefaultIdentity.Name), Email: github.String(core.DefaultIdentity.Email)}})
	if err != nil {
		return err
	}
	_, _, err = gh.Git.CreateRef(ctx, owner, repo, &github.Reference{Ref: github.String("refs/tags/" + tag),
		Object: &github.GitObject{SHA: obj.SHA}})
	return err
}

// Catalog is the standard repository the cast works in, acme/catalog, as
// the App's installation sees it.
func (r *Rig) Catalog() core.Repo {
	return core.Repo{Owner: "acme", Name: "catalog", InstallationID: r.Env.Installation.ID, DefaultBranch: "main"}
}

// Seed commits files (the whole tree) on acme/catalog's main as alice,
// with no webhooks, and returns the commit.
func (r *Rig) Seed(t testing.TB, files map[string][]byte) string {
	t.Helper()
	alice, _ := r.Env.Forge.Account("alice")
	sha, err := r.Env.Forge.CommitFiles("acme/catalog", "main", files, "seed", alice)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// Open opens a session on acme/catalog as the App's installation.
func (r *Rig) Open(t testing.TB) *core.Session {
	t.Helper()
	s, err := r.Opener.Open(context.Background(), r.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// User is a go-github client of a cast member (forgetest.AliceToken, ...).
func (r *Rig) User(token string) *github.Client { return r.Env.Client(token) }

// Replica is another bot replica's Opener: its own git cache (and client
// token cache) on the same forge, with the rig's bounds.
func (r *Rig) Replica(t testing.TB) *core.Opener {
	t.Helper()
	store, err := gitstore.New(gitstore.Options{Dir: t.TempDir(), Logger: r.Log, Auth: gitstore.InstallationAuth(r.Clients)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	return &core.Opener{Clients: ghclient.HubClients{Clients: r.Clients}, Git: store, GitURL: r.Clients.URLs().GitURL,
		Configs: &config.Cache{}, Limits: r.Opener.Limits, Logger: r.Log}
}

// CheckRuns lists the check runs named name on sha in acme/catalog, as
// alice sees them.
func (r *Rig) CheckRuns(t testing.TB, sha plumbing.Hash, name string) []*github.CheckRun {
	t.Helper()
	res, _, err := r.User(forgetest.AliceToken).Checks.ListCheckRunsForRef(context.Background(), "acme", "catalog",
		sha.String(), &github.ListCheckRunsOptions{CheckName: github.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return res.CheckRuns
}

// OneCheck is the only check run named name on sha in acme/catalog.
func (r *Rig) OneCheck(t testing.TB, sha plumbing.Hash, name string) *github.CheckRun {
	t.Helper()
	runs := r.CheckRuns(t, sha, name)
	if len(runs) != 1 {
		t.Fatalf("want 1 %s check run on %s, got %d", name, sha, len(runs))
	}
	return runs[0]
}
