package redeliver

import (
	"context"

	"github.com/sirupsen/logrus"

	ghclient "github.com/porchbot/porchbot/internal/github"
)

// ForApp is a Redeliverer calling GitHub as the App (its JWT), as the
// deliveries endpoints require; nil when no App credentials are
// configured (a personal-token setup has no App webhook).
func ForApp(clients *ghclient.Clients, log logrus.FieldLogger, opts Options) *Redeliverer {
	if !clients.HasApp() {
		return nil
	}
	return New(clients.App(context.Background()).Apps, log.WithField("component", "redeliver"), opts)
}
