package fleet

import (
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
)

// A deployer's reports on downstream commits, as GitHub's webhooks bring
// them, in the rollouts' terms (rollout.DeploymentReport): commit statuses
// (Flux's notification controller, Argo CD Notifications, any status
// reporter), check runs of other Apps, and GitHub deployments' statuses,
// whose context is "deployment/<environment>". Which contexts count is
// each rollout's deploymentContexts. ok is false for what is no report.

// StatusReport is a commit status's report.
func StatusReport(ev *github.StatusEvent) (rollout.DeploymentReport, bool) {
	state, ok := rollout.StatusState(ev.GetState())
	return rollout.DeploymentReport{SHA: ev.GetSHA(), Context: ev.GetContext(), State: state, At: ev.GetUpdatedAt().Time,
		URL: ev.GetTargetURL(), Description: ev.GetDescription()}, ok
}

// CheckRunReport is another App's check run's report; porchbot's own
// checks (named porchbot/…, or by the App's bot user botLogin) never are
// one.
func CheckRunReport(ev *github.CheckRunEvent, botLogin string) (rollout.DeploymentReport, bool) {
	run := ev.GetCheckRun()
	if strings.HasPrefix(run.GetName(), "porchbot/") || botLogin != "" && strings.EqualFold(run.GetApp().GetSlug()+"[bot]", botLogin) {
		return rollout.DeploymentReport{}, false
	}
	state, at, ok := rollout.CheckRunState(run.GetStatus(), run.GetConclusion(), run.GetStartedAt().Time, run.GetCompletedAt().Time)
	return rollout.DeploymentReport{SHA: run.GetHeadSHA(), Context: run.GetName(), State: state, At: at,
		URL: run.GetHTMLURL(), Description: run.GetOutput().GetTitle()}, ok
}

// DeploymentStatusReport is a GitHub deployment status's report, of
// context "deployment/<environment>".
func DeploymentStatusReport(ev *github.DeploymentStatusEvent) (rollout.DeploymentReport, bool) {
	st := ev.GetDeploymentStatus()
	state, ok := rollout.DeploymentState(st.GetState())
	url := st.GetLogURL()
	if url == "" {
		url = st.GetTargetURL()
	}
	return rollout.DeploymentReport{SHA: ev.GetDeployment().GetSHA(), Context: "deployment/" + st.GetEnvironment(), State: state,
		At: st.GetUpdatedAt().Time, URL: url, Description: st.GetDescription()}, ok
}
