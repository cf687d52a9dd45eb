package forge

import "github.com/google/go-github/v60/github"

// releaseEvent is the release webhook payload.
type releaseEvent struct {
	Action       string               `json:"action"`
	Release      map[string]any       `json:"release"`
	Changes      map[string]any       `json:"changes,omitempty"`
	Repository   *github.Repository   `json:"repository"`
	Organization *github.Organization `json:"organization,omitempty"`
	Sender       *github.User         `json:"sender"`
	Installation *github.Installation `json:"installation,omitempty"`
}

// emitRelease sends release <action> (created, published, released,
// prereleased, edited, deleted) with the full release object.
func (f *Forge) emitRelease(action string, repo *Repo, rel Release, sender *Account, changes map[string]any) {
	if action == "edited" && changes == nil {
		changes = map[string]any{}
	}
	f.emit("release", action, repo, &releaseEvent{
		Action: action, Release: f.releaseObject(repo, rel), Changes: changes,
		Repository: f.repoObject(repo), Organization: f.orgObject(repo.Owner),
		Sender: f.userObject(f.senderOrBot(sender)), Installation: f.installationRef(repo),
	})
}
