package github

import (
	"context"

	"github.com/porchbot/porchbot/internal/hub"
)

// HubClients gives an installation's hub.API: its go-github client
// (Clients.Installation) behind API.
type HubClients struct{ Clients *Clients }

// Installation is installationID's hub.API.
func (h HubClients) Installation(ctx context.Context, installationID int64) (hub.API, error) {
	gh, err := h.Clients.Installation(ctx, installationID)
	if err != nil {
		return nil, err
	}
	return NewAPI(gh), nil
}

// InstallationIDForRepo is the installation covering fullName
// (Clients.InstallationIDForRepo): the App asks it whether it is
// installed on an upstream.
func (h HubClients) InstallationIDForRepo(ctx context.Context, fullName string) (int64, error) {
	return h.Clients.InstallationIDForRepo(ctx, fullName)
}
