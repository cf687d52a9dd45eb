package bot

import (
	"context"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
)

// A deployer's reports on downstream commits, as GitHub brings them, in
// the rollouts' terms (rollout.DeploymentReport): commit statuses (Flux's
// notification controller, Argo CD Notifications, any status reporter),
// check runs of other Apps, and GitHub deployments' statuses, whose
// context is "deployment/<environment>". Which contexts count is each
// rollout's deploymentContexts.

// OnStatus records a commit status as a deployment report.
func (a *App) OnStatus(ctx context.Context, installationID int64, ev *github.StatusEvent) error {
	state, ok := rollout.StatusState(ev.GetState())
	if !ok {
		return nil
	}
	r := ev.GetRepo()
	return a.OnDeploymentReport(ctx, repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch()), rollout.DeploymentReport{
		SHA: ev.GetSHA(), Context: ev.GetContext(), State: state, At: ev.GetUpdatedAt().Time,
		URL: ev.GetTargetURL(), Description: ev.GetDescription()})
}

// onCheckRunReport records another App's check run as a deployment
// report (porchbot's own checks never are one).
func (a *App) onCheckRunReport(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error {
	run := ev.GetCheckRun()
	if strings.HasPrefix(run.GetName(), "porchbot/") || a.BotLogin != "" && strings.EqualFold(run.GetApp().GetSlug()+"[bot]", a.BotLogin) {
		return nil
	}
	state, at, ok := rollout.CheckRunState(run.GetStatus(), run.GetConclusion(), run.GetStartedAt().Time, run.GetCompletedAt().Time)
	if !ok {
		return nil
	}
	r := ev.GetRepo()
	return a.OnDeploymentReport(ctx, repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch()), rollout.DeploymentReport{
		SHA: run.GetHeadSHA(), Context: run.GetName(), State: state, At: at,
		URL: run.GetHTMLURL(), Description: run.GetOutput().GetTitle()})
}

// OnDeploymentStatus records a GitHub deployment's status as a
// deployment report of context "deployment/<environment>".
func (a *App) OnDeploymentStatus(ctx context.Context, installationID int64, ev *github.DeploymentStatusEvent) error {
	st := ev.GetDeploymentStatus()
	state, ok := rollout.DeploymentState(st.GetState())
	if !ok {
		return nil
	}
	d, r := ev.GetDeployment(), ev.GetRepo()
	url := st.GetLogURL()
	if url == "" {
		url = st.GetTargetURL()
	}
	return a.OnDeploymentReport(ctx, repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch()), rollout.DeploymentReport{
		SHA: d.GetSHA(), Context: "deployment/" + st.GetEnvironment(), State: state, At: st.GetUpdatedAt().Time,
		URL: url, Description: st.GetDescription()})
}
