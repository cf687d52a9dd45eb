package forge

import (
	"encoding/json"
	"strconv"

	"github.com/google/go-github/v60/github"
)

// JSON shapes of deployments and their statuses, shared by the REST
// answers and the deployment / deployment_status webhooks: go-github's
// types, with what GitHub sends that they do not carry
// (original_environment, transient_environment, production_environment,
// performed_via_github_app) and the empty strings and nulls GitHub sends.

// deploymentView is a deployment as it was, its statuses copied (oldest
// first), read outside repo.mu.
type deploymentView struct {
	Deployment
	Statuses []DeploymentStatus
}

// viewDeploymentLocked copies d. Caller holds repo.mu.
func viewDeploymentLocked(d *Deployment) deploymentView {
	v := deploymentView{Deployment: *d}
	v.Deployment.Statuses = nil
	for _, s := range d.Statuses {
		v.Statuses = append(v.Statuses, *s)
	}
	return v
}

// deploymentURL is the REST URL of a deployment.
func (f *Forge) deploymentURL(repo *Repo, id int64) string {
	api, _ := f.repoURLs(repo)
	return api + "/deployments/" + strconv.FormatInt(id, 10)
}

// viaAppObject is performed_via_github_app: the App when its installation
// acted, else null.
func (f *Forge) viaAppObject(via bool) any {
	if app := f.checkAppObject(); via && app != nil {
		return app
	}
	return nil
}

// deploymentObject is GitHub's deployment.
func (f *Forge) deploymentObject(repo *Repo, d deploymentView) map[string]any {
	api, _ := f.repoURLs(repo)
	url := f.deploymentURL(repo, d.ID)
	obj := &github.Deployment{
		URL: github.String(url), ID: github.Int64(d.ID), NodeID: github.String(nodeID("Deployment", d.ID)),
		SHA: github.String(d.SHA), Ref: github.String(d.Ref), Task: github.String(d.Task), Payload: d.Payload,
		Environment: github.String(d.Environment), CreatedAt: ts(d.CreatedAt), UpdatedAt: ts(d.UpdatedAt),
		StatusesURL: github.String(url + "/statuses"), RepositoryURL: github.String(api),
	}
	if d.Creator != nil {
		obj.Creator = f.userObject(d.Creator)
	}
	m := jsonObjectOf(obj)
	m["payload"] = json.RawMessage(d.Payload) // {} is kept
	m["original_environment"] = d.OriginalEnvironment
	m["description"] = jsonNullStr(d.Description)
	m["transient_environment"], m["production_environment"] = d.Transient, d.Production
	m["performed_via_github_app"] = f.viaAppObject(d.ViaApp)
	if d.Creator == nil {
		m["creator"] = nil
	}
	return m
}

// deploymentStatusObject is GitHub's deployment status s of d: its
// optional strings are "" when unset, as GitHub sends them.
func (f *Forge) deploymentStatusObject(repo *Repo, d deploymentView, s DeploymentStatus) map[string]any {
	api, _ := f.repoURLs(repo)
	dep := f.deploymentURL(repo, d.ID)
	obj := &github.DeploymentStatus{
		URL: github.String(dep + "/statuses/" + strconv.FormatInt(s.ID, 10)), ID: github.Int64(s.ID),
		NodeID: github.String(nodeID("DeploymentStatus", s.ID)), State: github.String(s.State),
		CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt),
		DeploymentURL: github.String(dep), RepositoryURL: github.String(api),
	}
	if s.Creator != nil {
		obj.Creator = f.userObject(s.Creator)
	}
	m := jsonObjectOf(obj)
	m["description"], m["environment"] = s.Description, s.Environment
	m["target_url"], m["log_url"], m["environment_url"] = s.TargetURL, s.LogURL, s.EnvironmentURL
	m["performed_via_github_app"] = f.viaAppObject(s.ViaApp)
	if s.Creator == nil {
		m["creator"] = nil
	}
	return m
}

// emitDeployment sends the deployment webhook (action created).
func (f *Forge) emitDeployment(repo *Repo, d deploymentView, sender *Account) {
	if !f.wantsHooks(repo) {
		return
	}
	payload := f.deploymentEventPayload(repo, sender)
	payload["deployment"] = f.deploymentObject(repo, d)
	payload["workflow"], payload["workflow_run"] = nil, nil
	f.emit("deployment", "created", repo, payload)
}

// emitDeploymentStatus sends the deployment_status webhook (action
// created) of e's status.
func (f *Forge) emitDeploymentStatus(repo *Repo, e deploymentStatusEvent, sender *Account) {
	if !f.wantsHooks(repo) {
		return
	}
	payload := f.deploymentEventPayload(repo, sender)
	payload["deployment_status"] = f.deploymentStatusObject(repo, e.deployment, e.status)
	payload["deployment"] = f.deploymentObject(repo, e.deployment)
	f.emit("deployment_status", "created", repo, payload)
}

// deploymentEventPayload is what both deployment webhooks carry: the
// action, the repository, the sender, the installation and, for an
// organisation's repository, the organisation.
func (f *Forge) deploymentEventPayload(repo *Repo, sender *Account) map[string]any {
	m := map[string]any{"action": "created", "repository": f.repoObject(repo), "sender": f.userObject(sender)}
	if inst := f.installationRef(repo); inst != nil {
		m["installation"] = inst
	}
	if org := f.orgObject(repo.Owner); org != nil {
		m["organization"] = org
	}
	return m
}
