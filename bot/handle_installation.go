package bot

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// InstallationHandler handles installation and installation_repositories
// events: repositories the App gains are registered and resynced, those it
// loses are forgotten. Today it logs the change.
type InstallationHandler struct{}

// Handle logs a *github.InstallationEvent or a
// *github.InstallationRepositoriesEvent.
func (h *InstallationHandler) Handle(ctx context.Context, ev *Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	switch event := payload.(type) {
	case *github.InstallationEvent:
		inst := event.GetInstallation()
		LoggerFrom(ctx).WithFields(logrus.Fields{
			"account":      inst.GetAccount().GetLogin(),
			"app_id":       inst.GetAppID(),
			"selection":    inst.GetRepositorySelection(),
			"repositories": len(event.Repositories),
			"sender":       event.GetSender().GetLogin(),
		}).Info("installation event")
	case *github.InstallationRepositoriesEvent:
		LoggerFrom(ctx).WithFields(logrus.Fields{
			"account":   event.GetInstallation().GetAccount().GetLogin(),
			"selection": event.GetRepositorySelection(),
			"added":     len(event.RepositoriesAdded),
			"removed":   len(event.RepositoriesRemoved),
			"sender":    event.GetSender().GetLogin(),
		}).Info("installation repositories event")
	default:
		return unexpectedPayload(ev, payload)
	}
	return nil
}
