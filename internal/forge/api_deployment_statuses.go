package forge

import (
	"net/http"
	"slices"
)

// GitHub's limits on deployment statuses; the forge keeps at most
// maxStatusesPerDeployment of a deployment, as it does of a commit's
// context.
const (
	maxDeploymentStatusDescription = 140
	maxStatusesPerDeployment       = maxStatusesPerContext
)

var deploymentStates = map[string]bool{"error": true, "failure": true, "inactive": true, "in_progress": true,
	"queued": true, "pending": true, "success": true}

// deploymentStatusRequest is the body of POST .../deployments/{id}/statuses.
type deploymentStatusRequest struct {
	State          string  `json:"state"`
	TargetURL      string  `json:"target_url"`
	LogURL         string  `json:"log_url"`
	Description    string  `json:"description"`
	Environment    *string `json:"environment"`
	EnvironmentURL string  `json:"environment_url"`
	AutoInactive   *bool   `json:"auto_inactive"`
}

// createDeploymentStatus is POST .../deployments/{id}/statuses. log_url
// sets target_url too; environment, when given, becomes the deployment's
// (else the previous status's, else the deployment's is kept). A success
// with auto_inactive (the default) adds an inactive status to every
// earlier deployment of the same environment, neither transient nor
// production, whose latest status is success, as GitHub does.
func (f *Forge) createDeploymentStatus(w http.ResponseWriter, r *http.Request, rc *reqCtx, d deploymentView) {
	req, ok := decode[deploymentStatusRequest](rc)
	if !ok {
		return
	}
	switch {
	case !deploymentStates[req.State]:
		validationFailed(w, "DeploymentStatus", "state", "invalid", "state is not included in the list")
		return
	case len([]rune(req.Description)) > maxDeploymentStatusDescription:
		validationFailed(w, "DeploymentStatus", "description", "custom", "description is too long (maximum is 140 characters)")
		return
	case len(req.TargetURL) > maxStatusTargetURL || len(req.LogURL) > maxStatusTargetURL || len(req.EnvironmentURL) > maxStatusTargetURL:
		validationFailed(w, "DeploymentStatus", "target_url", "custom", "url is too long")
		return
	case req.Environment != nil && len(*req.Environment) > maxDeploymentEnvironment:
		validationFailed(w, "DeploymentStatus", "environment", "custom", "environment is too long (maximum is 255 characters)")
		return
	}
	if req.LogURL != "" {
		req.TargetURL = req.LogURL
	}
	repo, now := rc.repo, f.now()
	st := &DeploymentStatus{ID: f.newID(), State: req.State, Description: req.Description, TargetURL: req.TargetURL,
		LogURL: req.LogURL, EnvironmentURL: req.EnvironmentURL, Creator: rc.actor(), ViaApp: viaApp(rc),
		CreatedAt: now, UpdatedAt: now}
	repo.mu.Lock()
	dep := deploymentLocked(repo, d.ID)
	if len(dep.Statuses) >= maxStatusesPerDeployment {
		repo.mu.Unlock()
		validationFailed(w, "DeploymentStatus", "", "custom", "This deployment has reached the maximum number of statuses.")
		return
	}
	st.Environment = dep.Environment
	if req.Environment != nil && *req.Environment != "" {
		st.Environment = *req.Environment
	}
	dep.Environment, dep.UpdatedAt = st.Environment, now
	dep.Statuses = append(dep.Statuses, st)
	events := []deploymentStatusEvent{{deployment: viewDeploymentLocked(dep), status: *st}}
	if st.State == "success" && (req.AutoInactive == nil || *req.AutoInactive) {
		events = append(events, f.inactivatePriorLocked(repo, dep, st)...)
	}
	repo.mu.Unlock()
	for _, e := range events {
		f.emitDeploymentStatus(repo, e, rc.actor())
	}
	writeJSON(w, r, http.StatusCreated, f.deploymentStatusObject(repo, events[0].deployment, *st))
}

// deploymentStatusEvent is one deployment_status webhook to send: the
// status and its deployment as they were.
type deploymentStatusEvent struct {
	deployment deploymentView
	status     DeploymentStatus
}

// inactivatePriorLocked adds an inactive status (by success's creator) to
// the deployments before dep of its environment, neither transient nor
// production, whose latest status is success. Caller holds repo.mu.
func (f *Forge) inactivatePriorLocked(repo *Repo, dep *Deployment, success *DeploymentStatus) []deploymentStatusEvent {
	var out []deploymentStatusEvent
	for _, prior := range repo.Deployments {
		if prior.ID >= dep.ID || prior.Transient || prior.Production || prior.Environment != dep.Environment ||
			len(prior.Statuses) == 0 || prior.Statuses[len(prior.Statuses)-1].State != "success" {
			continue
		}
		st := &DeploymentStatus{ID: f.newID(), State: "inactive", Environment: prior.Environment,
			Creator: success.Creator, ViaApp: success.ViaApp, CreatedAt: success.CreatedAt, UpdatedAt: success.CreatedAt}
		prior.Statuses = append(prior.Statuses, st)
		prior.UpdatedAt = success.CreatedAt
		out = append(out, deploymentStatusEvent{deployment: viewDeploymentLocked(prior), status: *st})
	}
	return out
}

// deploymentLocked is the repository's deployment id (known to exist:
// deployments are never deleted). Caller holds repo.mu.
func deploymentLocked(repo *Repo, id int64) *Deployment {
	i := slices.IndexFunc(repo.Deployments, func(d *Deployment) bool { return d.ID == id })
	return repo.Deployments[i]
}

// listDeploymentStatuses is GET .../deployments/{id}/statuses, newest
// first.
func (f *Forge) listDeploymentStatuses(w http.ResponseWriter, r *http.Request, rc *reqCtx, d deploymentView) {
	newest := slices.Clone(d.Statuses)
	slices.Reverse(newest)
	out := []map[string]any{}
	for _, s := range paginate(w, r, f.BaseURL(), newest) {
		out = append(out, f.deploymentStatusObject(rc.repo, d, s))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// getDeploymentStatus is GET .../deployments/{id}/statuses/{status_id}.
func (f *Forge) getDeploymentStatus(w http.ResponseWriter, r *http.Request, rc *reqCtx, d deploymentView) {
	id, ok := rc.intVar("status_id")
	if !ok {
		return
	}
	i := slices.IndexFunc(d.Statuses, func(s DeploymentStatus) bool { return s.ID == id })
	if i < 0 {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.deploymentStatusObject(rc.repo, d, d.Statuses[i]))
}
