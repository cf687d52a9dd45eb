package forge

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// Builders of GitHub's JSON objects, shared by the REST answers and the
// webhook payloads so both carry the same shapes GitHub sends. They return
// go-github's types, so every answer is by construction one that go-github
// decodes.

// nodeID makes a GitHub-style global node id for an object.
func nodeID(kind string, id int64) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("0%d:%s%d", len(kind), kind, id)))
}

func ts(t time.Time) *github.Timestamp { return &github.Timestamp{Time: t} }

// urls of the forge: api base (no trailing slash) and web base.
func (f *Forge) apiBase() string { return f.BaseURL() + apiPrefix }
func (f *Forge) webBase() string { return f.BaseURL() }

// userObject is the simple user object of "sender", "owner", "user".
func (f *Forge) userObject(a *Account) *github.User {
	if a == nil {
		return nil
	}
	// A login goes into URLs escaped, as GitHub's "porchbot%5Bbot%5D"; a
	// bot's page is its App's.
	api := f.apiBase() + "/users/" + url.PathEscape(a.Login)
	html := f.webBase() + "/" + url.PathEscape(a.Login)
	if a.Type == "Bot" {
		html = f.webBase() + "/apps/" + url.PathEscape(strings.TrimSuffix(a.Login, "[bot]"))
	}
	return &github.User{
		Login: github.String(a.Login), ID: github.Int64(a.ID), NodeID: github.String(nodeID(a.Type, a.ID)),
		AvatarURL:         github.String(fmt.Sprintf("%s/avatars/u/%d?v=4", f.webBase(), a.ID)),
		GravatarID:        github.String(""),
		URL:               github.String(api),
		HTMLURL:           github.String(html),
		FollowersURL:      github.String(api + "/followers"),
		FollowingURL:      github.String(api + "/following{/other_user}"),
		GistsURL:          github.String(api + "/gists{/gist_id}"),
		StarredURL:        github.String(api + "/starred{/owner}{/repo}"),
		SubscriptionsURL:  github.String(api + "/subscriptions"),
		OrganizationsURL:  github.String(api + "/orgs"),
		ReposURL:          github.String(api + "/repos"),
		EventsURL:         github.String(api + "/events{/privacy}"),
		ReceivedEventsURL: github.String(api + "/received_events"),
		Type:              github.String(a.Type),
		SiteAdmin:         github.Bool(false),
	}
}

// orgObject is the "organization" of webhook payloads.
func (f *Forge) orgObject(a *Account) *github.Organization {
	if a == nil || a.Type != "Organization" {
		return nil
	}
	api := f.apiBase() + "/orgs/" + a.Login
	return &github.Organization{
		Login: github.String(a.Login), ID: github.Int64(a.ID), NodeID: github.String(nodeID("Organization", a.ID)),
		URL: github.String(api), ReposURL: github.String(api + "/repos"), EventsURL: github.String(api + "/events"),
		HooksURL: github.String(api + "/hooks"), IssuesURL: github.String(api + "/issues"),
		MembersURL:       github.String(api + "/members{/member}"),
		PublicMembersURL: github.String(api + "/public_members{/member}"),
		AvatarURL:        github.String(fmt.Sprintf("%s/avatars/u/%d?v=4", f.webBase(), a.ID)),
		Description:      github.String(""),
	}
}

// repoObject is the full repository object.
func (f *Forge) repoObject(r *Repo) *github.Repository {
	full := r.FullName()
	api := f.apiBase() + "/repos/" + full
	web := f.webBase() + "/" + full
	r.mu.Lock()
	openIssues := 0
	for _, is := range r.Issues {
		if is.State == "open" {
			openIssues++
		}
	}
	created, updated, pushed := r.CreatedAt, r.UpdatedAt, r.PushedAt
	topics := append([]string{}, r.Topics...)
	fork, forks := r.Parent != nil, r.ForkCount
	r.mu.Unlock()
	visibility := "public"
	if r.Private {
		visibility = "private"
	}
	host := strings.TrimPrefix(strings.TrimPrefix(f.webBase(), "http://"), "https://")
	repo := &github.Repository{
		ID: github.Int64(r.ID), NodeID: github.String(nodeID("Repository", r.ID)),
		Name: github.String(r.Name), FullName: github.String(full), Owner: f.userObject(r.Owner),
		Private: github.Bool(r.Private), HTMLURL: github.String(web), Description: github.String(r.Description),
		Fork: github.Bool(fork), URL: github.String(api),
		ForksURL:         github.String(api + "/forks"),
		KeysURL:          github.String(api + "/keys{/key_id}"),
		CollaboratorsURL: github.String(api + "/collaborators{/collaborator}"),
		TeamsURL:         github.String(api + "/teams"),
		HooksURL:         github.String(api + "/hooks"),
		IssueEventsURL:   github.String(api + "/issues/events{/number}"),
		EventsURL:        github.String(api + "/events"),
		AssigneesURL:     github.String(api + "/assignees{/user}"),
		BranchesURL:      github.String(api + "/branches{/branch}"),
		TagsURL:          github.String(api + "/tags"),
		BlobsURL:         github.String(api + "/git/blobs{/sha}"),
		GitTagsURL:       github.String(api + "/git/tags{/sha}"),
		GitRefsURL:       github.String(api + "/git/refs{/sha}"),
		TreesURL:         github.String(api + "/git/trees{/sha}"),
		StatusesURL:      github.String(api + "/statuses/{sha}"),
		LanguagesURL:     github.String(api + "/languages"),
		StargazersURL:    github.String(api + "/stargazers"),
		ContributorsURL:  github.String(api + "/contributors"),
		SubscribersURL:   github.String(api + "/subscribers"),
		SubscriptionURL:  github.String(api + "/subscription"),
		CommitsURL:       github.String(api + "/commits{/sha}"),
		GitCommitsURL:    github.String(api + "/git/commits{/sha}"),
		CommentsURL:      github.String(api + "/comments{/number}"),
		IssueCommentURL:  github.String(api + "/issues/comments{/number}"),
		ContentsURL:      github.String(api + "/contents/{+path}"),
		CompareURL:       github.String(api + "/compare/{base}...{head}"),
		MergesURL:        github.String(api + "/merges"),
		ArchiveURL:       github.String(api + "/{archive_format}{/ref}"),
		DownloadsURL:     github.String(api + "/downloads"),
		IssuesURL:        github.String(api + "/issues{/number}"),
		PullsURL:         github.String(api + "/pulls{/number}"),
		MilestonesURL:    github.String(api + "/milestones{/number}"),
		NotificationsURL: github.String(api + "/notifications{?since,all,participating}"),
		LabelsURL:        github.String(api + "/labels{/name}"),
		ReleasesURL:      github.String(api + "/releases{/id}"),
		DeploymentsURL:   github.String(api + "/deployments"),
		CreatedAt:        ts(created), UpdatedAt: ts(updated), PushedAt: ts(pushed),
		GitURL:          github.String("git://" + host + "/" + full + ".git"),
		SSHURL:          github.String("git@" + host + ":" + full + ".git"),
		CloneURL:        github.String(web + ".git"),
		SVNURL:          github.String(web),
		Size:            github.Int(0),
		StargazersCount: github.Int(0), WatchersCount: github.Int(0), Watchers: github.Int(0),
		Language:  github.String(""),
		HasIssues: github.Bool(true), HasProjects: github.Bool(false), HasDownloads: github.Bool(true),
		HasWiki: github.Bool(false), HasPages: github.Bool(false), HasDiscussions: github.Bool(false),
		ForksCount: github.Int(forks),
		Archived:   github.Bool(false), Disabled: github.Bool(false),
		OpenIssuesCount: github.Int(openIssues), OpenIssues: github.Int(openIssues),
		IsTemplate:               github.Bool(false),
		Topics:                   topics,
		Visibility:               github.String(visibility),
		DefaultBranch:            github.String(r.DefaultBranch),
		MasterBranch:             github.String(r.DefaultBranch),
		WebCommitSignoffRequired: github.Bool(false),
		CustomProperties:         map[string]string{},
		Organization:             f.userObjectIfOrg(r.Owner),
		AllowForking:             github.Bool(true),
		AllowMergeCommit:         github.Bool(true), AllowSquashMerge: github.Bool(true), AllowRebaseMerge: github.Bool(true),
		AllowAutoMerge: github.Bool(true), DeleteBranchOnMerge: github.Bool(false),
	}
	return repo
}

// userObjectIfOrg is the "organization" field of a repository object.
func (f *Forge) userObjectIfOrg(a *Account) *github.Organization {
	if a.Type != "Organization" {
		return nil
	}
	u := f.userObject(a)
	return &github.Organization{Login: u.Login, ID: u.ID, NodeID: u.NodeID, AvatarURL: u.AvatarURL,
		URL: u.URL, HTMLURL: u.HTMLURL, ReposURL: u.ReposURL, EventsURL: u.EventsURL, Type: u.Type}
}

// repoObjectFor is repoObject with the caller's permissions, as GET
// /repos/{owner}/{repo} answers.
func (f *Forge) repoObjectFor(r *Repo, p *principal) *github.Repository {
	obj := f.repoObject(r)
	perm := f.permission(p, r)
	obj.Permissions = map[string]bool{
		"admin": perm >= PermAdmin, "maintain": perm >= PermMaintain, "push": perm >= PermWrite,
		"triage": perm >= PermTriage, "pull": perm >= PermRead,
	}
	if parent, source := forkParents(r); parent != nil {
		obj.Parent, obj.Source = f.repoObject(parent), f.repoObject(source)
	}
	return obj
}

// installationRef is the short "installation" object webhook payloads carry.
func (f *Forge) installationRef(r *Repo) *github.Installation {
	inst := f.installationFor(r)
	if inst == nil {
		return nil
	}
	return &github.Installation{ID: github.Int64(inst.ID), NodeID: github.String(nodeID("Installation", inst.ID))}
}

// appPermissions are the permissions the App was granted (app.yaml).
func appPermissions() *github.InstallationPermissions {
	return &github.InstallationPermissions{
		Contents: github.String("write"), PullRequests: github.String("write"), Issues: github.String("write"),
		Checks: github.String("write"), Metadata: github.String("read"), Members: github.String("read"),
	}
}

// defaultAppEvents are the events an App registered without a list
// subscribes to: every repository event the forge sends an App, so the
// forge's own tests hear them all. porchbot's App subscribes to its
// app.yaml's default_events (SetAppEvents, the manifest flow). The
// installation events are not among them: GitHub sends them to every App.
var defaultAppEvents = []string{"check_run", "check_suite", "create", "delete",
	"deployment", "deployment_status", "issue_comment", "issues", "pull_request", "pull_request_review", "push", "release"}

// appEvents are the events the App subscribes to.
func (f *Forge) appEvents() []string {
	if app := f.appInfo(); app != nil && app.Events != nil {
		return append([]string(nil), app.Events...)
	}
	return append([]string(nil), defaultAppEvents...)
}

// installationObject is the full installation object of GET /app/installations
// and installation webhooks.
func (f *Forge) installationObject(inst *Installation) *github.Installation {
	app := f.appInfo()
	api := f.apiBase()
	obj := &github.Installation{
		ID: github.Int64(inst.ID), NodeID: github.String(nodeID("Installation", inst.ID)),
		Account:                f.userObject(inst.Account),
		AccessTokensURL:        github.String(fmt.Sprintf("%s/app/installations/%d/access_tokens", api, inst.ID)),
		RepositoriesURL:        github.String(api + "/installation/repositories"),
		HTMLURL:                github.String(fmt.Sprintf("%s/settings/installations/%d", f.webBase(), inst.ID)),
		TargetID:               github.Int64(inst.Account.ID),
		TargetType:             github.String(inst.Account.Type),
		RepositorySelection:    github.String("all"),
		Permissions:            appPermissions(),
		Events:                 f.appEvents(),
		SingleFileName:         github.String(""),
		HasMultipleSingleFiles: github.Bool(false),
		SingleFilePaths:        []string{},
		CreatedAt:              ts(time.Unix(1700000000, 0).UTC()),
		UpdatedAt:              ts(time.Unix(1700000000, 0).UTC()),
	}
	if app != nil {
		obj.AppID = github.Int64(app.ID)
		obj.AppSlug = github.String(app.Slug)
	}
	return obj
}
