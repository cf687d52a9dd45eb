package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// InstallationReactor acts on the repositories an installation gains
// (installation created, installation_repositories added): their
// dashboard issue is opened.
type InstallationReactor interface {
	OnInstallation(ctx context.Context, installationID int64, repos []string) error
}

// InstallationHandler handles installation and installation_repositories
// events (GitHub sends both to every App). It reacts through React when it
// is set (the App); without it, it only logs. Repositories the App loses
// need nothing: the resync lists installed repositories each pass.
type InstallationHandler struct{ React InstallationReactor }

// Handle logs a *github.InstallationEvent or a
// *github.InstallationRepositoriesEvent and hands the repositories gained
// to React.
func (h *InstallationHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	switch event := payload.(type) {
	case *github.InstallationEvent:
		inst := event.GetInstallation()
		ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
			"account":      inst.GetAccount().GetLogin(),
			"app_id":       inst.GetAppID(),
			"selection":    inst.GetRepositorySelection(),
			"repositories": len(event.Repositories),
			"sender":       event.GetSender().GetLogin(),
		}).Info("installation event")
		if h.React != nil && event.GetAction() == "created" {
			names := make([]string, 0, len(event.Repositories))
			for _, r := range event.Repositories {
				names = append(names, r.GetFullName())
			}
			return h.React.OnInstallation(ctx, inst.GetID(), names)
		}
	case *github.InstallationRepositoriesEvent:
		ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
			"account":   event.GetInstallation().GetAccount().GetLogin(),
			"selection": event.GetRepositorySelection(),
			"added":     len(event.RepositoriesAdded),
			"removed":   len(event.RepositoriesRemoved),
			"sender":    event.GetSender().GetLogin(),
		}).Info("installation repositories event")
		if h.React != nil && event.GetAction() == "added" {
			names := make([]string, 0, len(event.RepositoriesAdded))
			for _, r := range event.RepositoriesAdded {
				names = append(names, r.GetFullName())
			}
			return h.React.OnInstallation(ctx, event.GetInstallation().GetID(), names)
		}
	default:
		return unexpectedPayload(ev, payload)
	}
	return nil
}
