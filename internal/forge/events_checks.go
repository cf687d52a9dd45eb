package forge

import (
	"strings"

	"github.com/google/go-github/v60/github"
)

// checkSuitesOnRefChanges requests a check suite from the App for each
// pushed branch head, as GitHub does (check_suite "requested"): one suite
// per App per commit, so a commit already known (a branch created at an
// existing commit, a fast-forward to a checked commit) asks nothing new.
// Tags and deletions request nothing.
func (f *Forge) checkSuitesOnRefChanges(repo *Repo, sender *Account, changes []RefChange) {
	if f.installationFor(repo) == nil {
		return // no App with checks permission is installed
	}
	var views []checkSuiteView
	repo.mu.Lock()
	for _, c := range changes {
		if !strings.HasPrefix(c.Ref, "refs/heads/") || c.After == "" || c.After == zeroSHA {
			continue
		}
		before := c.Before
		if before == "" {
			before = zeroSHA
		}
		s, created := f.ensureSuiteLocked(repo, c.After, strings.TrimPrefix(c.Ref, "refs/heads/"), before)
		if created {
			views = append(views, suiteViewLocked(repo, s))
		}
	}
	repo.mu.Unlock()
	for _, v := range views {
		f.emitCheckSuite("requested", repo, v, sender)
	}
}

// checkRunEvent is the check_run webhook payload.
type checkRunEvent struct {
	Action       string               `json:"action"`
	CheckRun     map[string]any       `json:"check_run"`
	Repository   *github.Repository   `json:"repository"`
	Organization *github.Organization `json:"organization,omitempty"`
	Sender       *github.User         `json:"sender"`
	Installation *github.Installation `json:"installation,omitempty"`
}

// checkSuiteEvent is the check_suite webhook payload.
type checkSuiteEvent struct {
	Action       string               `json:"action"`
	CheckSuite   map[string]any       `json:"check_suite"`
	Repository   *github.Repository   `json:"repository"`
	Organization *github.Organization `json:"organization,omitempty"`
	Sender       *github.User         `json:"sender"`
	Installation *github.Installation `json:"installation,omitempty"`
}

// emitCheckRun sends check_run <action> for a run (created, completed,
// rerequested).
func (f *Forge) emitCheckRun(action string, repo *Repo, v checkRunView, sender *Account) {
	f.emit("check_run", action, repo, &checkRunEvent{
		Action: action, CheckRun: f.checkRunObject(repo, v, true), Repository: f.repoObject(repo),
		Organization: f.orgObject(repo.Owner), Sender: f.userObject(f.senderOrBot(sender)),
		Installation: f.installationRef(repo),
	})
}

// emitCheckSuite sends check_suite <action> (requested, rerequested,
// completed).
func (f *Forge) emitCheckSuite(action string, repo *Repo, v checkSuiteView, sender *Account) {
	f.emit("check_suite", action, repo, &checkSuiteEvent{
		Action: action, CheckSuite: f.checkSuiteObject(repo, v), Repository: f.repoObject(repo),
		Organization: f.orgObject(repo.Owner), Sender: f.userObject(f.senderOrBot(sender)),
		Installation: f.installationRef(repo),
	})
}

// senderOrBot is sender, or the App's bot when nobody is named.
func (f *Forge) senderOrBot(sender *Account) *Account {
	if sender != nil {
		return sender
	}
	if app := f.appInfo(); app != nil {
		return app.Bot
	}
	return nil
}
