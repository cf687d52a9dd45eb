// Package lifecycletest is a local forge with the standard cast
// (internal/forge/forgetest) and the bot's real clients over it: an
// App-authenticated go-github, a go-git store, and a lifecycle.Opener.
// Tests of the lifecycle steps and of the commands share it.
package lifecycletest

import (
	"io"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/gitstore"
)

// Rig is a running forge and the bot's clients over it.
type Rig struct {
	Env     *forgetest.Env
	Clients *ghclient.Clients
	Store   *gitstore.Store
	Opener  *lifecycle.Opener
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
	opener := &lifecycle.Opener{Clients: clients, Git: store, GitURL: clients.URLs().GitURL,
		Configs: &config.Cache{}, Limits: Limits, Logger: log}
	return &Rig{Env: env, Clients: clients, Store: store, Opener: opener, Log: log}
}
