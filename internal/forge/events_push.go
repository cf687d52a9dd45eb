package forge

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
)

// The push, create and delete webhooks, sent for every ref change however
// it was made (git push, the git refs API, a merge), as GitHub sends them.
//
// Per change, in this order:
//   - "create" (ref_type branch or tag) when the ref is new;
//   - "push" (for creations and deletions too);
//   - "delete" when the ref was deleted.
//
// Changes are handled in the order given (a git push's changes sorted by
// ref name). Only branches (refs/heads/) and tags (refs/tags/) send
// webhooks. As GitHub documents, when more than three tags are pushed at
// once no push webhooks are sent for those tags, and likewise no create
// (more than three tags created) or delete (more than three deleted)
// webhooks for tags.
//
// A push payload lists at most pushCommitsLimit commits (the newest, oldest
// first): those reachable from after but not from before. A commit is
// "distinct" when no other branch or tag had it before the push.

// pushCommitsLimit caps the commits of a push payload.
const pushCommitsLimit = 20

// pushMaxTagEvents: above this many tags changed at once, GitHub sends no
// webhooks of that kind for them.
const pushMaxTagEvents = 3

// pushEventJSON is go-github's PushEvent with the parts GitHub sends but
// PushEvent cannot carry: the push flavour of the repository (created_at
// and pushed_at as unix seconds, the owner's name and email, and every
// field of GitHub's example), and empty lists and nulls kept rather than
// omitted. It decodes into github.PushEvent.
type pushEventJSON struct {
	*github.PushEvent
	Repo       json.RawMessage    `json:"repository"`
	BaseRef    *string            `json:"base_ref"`
	Commits    []*pushEventCommit `json:"commits"`
	HeadCommit *pushEventCommit   `json:"head_commit"`
}

type pushEventCommit struct {
	*github.HeadCommit
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
	Modified []string `json:"modified"`
}

// createEventJSON and deleteEventJSON keep description null when empty and
// carry the repository with its empty lists (topics, custom_properties).
type createEventJSON struct {
	*github.CreateEvent
	Repo        json.RawMessage `json:"repository"`
	Description *string         `json:"description"`
}

type deleteEventJSON struct {
	*github.DeleteEvent
	Repo json.RawMessage `json:"repository"`
}

// pushRepoKeys are the fields of a push payload's repository (GitHub's
// example), plus "organization" (the owner's login) for organisations.
var pushRepoKeys = []string{"id", "node_id", "name", "full_name", "private", "owner", "html_url", "description",
	"fork", "url", "forks_url", "keys_url", "collaborators_url", "teams_url", "hooks_url", "issue_events_url",
	"events_url", "assignees_url", "branches_url", "tags_url", "blobs_url", "git_tags_url", "git_refs_url",
	"trees_url", "statuses_url", "languages_url", "stargazers_url", "contributors_url", "subscribers_url",
	"subscription_url", "commits_url", "git_commits_url", "comments_url", "issue_comment_url", "contents_url",
	"compare_url", "merges_url", "archive_url", "downloads_url", "issues_url", "pulls_url", "milestones_url",
	"notifications_url", "labels_url", "releases_url", "deployments_url", "created_at", "updated_at",
	"pushed_at", "git_url", "ssh_url", "clone_url", "svn_url", "homepage", "size", "stargazers_count",
	"watchers_count", "language", "has_issues", "has_projects", "has_downloads", "has_wiki", "has_pages",
	"forks_count", "mirror_url", "archived", "disabled", "open_issues_count", "license", "forks", "open_issues",
	"watchers", "default_branch", "stargazers", "master_branch", "is_template", "topics", "visibility",
	"web_commit_signoff_required", "custom_properties"}

// gdAccountByEmail is the account whose email is email (GitHub links commit
// authors to users by email), or nil.
func (f *Forge) gdAccountByEmail(email string) *Account {
	if email == "" {
		return nil
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, a := range f.accounts {
		if strings.EqualFold(a.Email, email) {
			return a
		}
	}
	return nil
}

// pushWantsWebhooks reports whether webhooks about repo go anywhere (the same
// test as emit's), so payloads are not computed for nothing.
func (f *Forge) pushWantsWebhooks(repo *Repo) bool { return f.wantsHooks(repo) }

// pushRepoMap is the repository object as a JSON map, with the empty
// lists GitHub sends kept (and "forks", which go-github's Repository
// lacks).
func (f *Forge) pushRepoMap(repo *Repo) (map[string]any, *github.Repository) {
	obj := f.repoObject(repo)
	data, _ := json.Marshal(obj)
	m := map[string]any{}
	_ = json.Unmarshal(data, &m)
	if _, ok := m["topics"]; !ok {
		m["topics"] = []string{}
	}
	if _, ok := m["custom_properties"]; !ok {
		m["custom_properties"] = map[string]string{}
	}
	if _, ok := m["forks"]; !ok { // GitHub's alias of forks_count
		m["forks"] = obj.GetForksCount()
	}
	return m, obj
}

// pushFullRepoJSON is the repository object of create and delete payloads.
func (f *Forge) pushFullRepoJSON(repo *Repo) json.RawMessage {
	m, _ := f.pushRepoMap(repo)
	data, _ := json.Marshal(m)
	return data
}

// pushRepoJSON is the repository object of push payloads (go-github's
// PushEventRepository decodes it).
func (f *Forge) pushRepoJSON(repo *Repo) json.RawMessage {
	m, obj := f.pushRepoMap(repo)
	out := map[string]any{}
	for _, k := range pushRepoKeys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	out["url"] = obj.GetHTMLURL() // push payloads link the web page, as GitHub's do
	out["created_at"] = obj.GetCreatedAt().Unix()
	out["pushed_at"] = obj.GetPushedAt().Unix()
	out["forks"] = obj.GetForksCount()
	out["stargazers"] = obj.GetStargazersCount()
	if owner, ok := out["owner"].(map[string]any); ok {
		name := repo.Owner.Name
		if name == "" {
			name = repo.Owner.Login
		}
		owner["name"] = name
		owner["email"] = repo.Owner.Email
	}
	if repo.Owner.Type == "Organization" {
		out["organization"] = repo.Owner.Login
	} else {
		delete(out, "organization")
	}
	data, _ := json.Marshal(out)
	return data
}

// pushEvents sends the create, push and delete webhooks of changes.
func (f *Forge) pushEvents(repo *Repo, sender *Account, changes []RefChange) {
	if len(changes) == 0 || !f.pushWantsWebhooks(repo) {
		return
	}
	now, err := f.git.refs(repo.Path)
	if err != nil {
		f.log.WithError(err).WithField("repo", repo.FullName()).Error("push webhooks: list refs")
		return
	}
	// The refs as they stood before these changes.
	before := maps.Clone(now)
	var tagsCreated, tagsDeleted, tagsPushed int
	for _, c := range changes {
		if c.Before == zeroSHA {
			delete(before, c.Ref)
		} else {
			before[c.Ref] = c.Before
		}
		if strings.HasPrefix(c.Ref, "refs/tags/") {
			tagsPushed++
			switch {
			case c.Before == zeroSHA:
				tagsCreated++
			case c.After == zeroSHA:
				tagsDeleted++
			}
		}
	}
	repoPush := f.pushRepoJSON(repo)
	repoFull := f.pushFullRepoJSON(repo)
	org := f.orgObject(repo.Owner)
	inst := f.installationRef(repo)
	senderObj := f.userObject(sender)
	for _, c := range changes {
		refType, short := "", ""
		switch {
		case strings.HasPrefix(c.Ref, "refs/heads/"):
			refType, short = "branch", strings.TrimPrefix(c.Ref, "refs/heads/")
		case strings.HasPrefix(c.Ref, "refs/tags/"):
			refType, short = "tag", strings.TrimPrefix(c.Ref, "refs/tags/")
		default:
			continue
		}
		isTag := refType == "tag"
		if c.Before == zeroSHA && !(isTag && tagsCreated > pushMaxTagEvents) {
			// The description is sent as the repository objects send it
			// ("" when there is none; GitHub sends null).
			desc := github.String(repo.Description)
			f.emit("create", "", repo, &createEventJSON{
				CreateEvent: &github.CreateEvent{Ref: github.String(short), RefType: github.String(refType),
					MasterBranch: github.String(repo.DefaultBranch), Description: desc,
					PusherType: github.String("user"), Org: org, Sender: senderObj, Installation: inst},
				Repo: repoFull, Description: desc,
			})
		}
		if !(isTag && tagsPushed > pushMaxTagEvents) {
			f.emit("push", "", repo, f.pushEventFor(repo, sender, c, before, now, repoPush, org, inst, senderObj))
		}
		if c.After == zeroSHA && !(isTag && tagsDeleted > pushMaxTagEvents) {
			f.emit("delete", "", repo, &deleteEventJSON{
				DeleteEvent: &github.DeleteEvent{Ref: github.String(short), RefType: github.String(refType),
					PusherType: github.String("user"), Org: org, Sender: senderObj, Installation: inst},
				Repo: repoFull,
			})
		}
	}
}

// pushEventFor builds the push webhook of one ref change.
func (f *Forge) pushEventFor(repo *Repo, sender *Account, c RefChange, before, now map[string]string,
	repoJSON json.RawMessage, org *github.Organization, inst *github.Installation, senderObj *github.User) *pushEventJSON {
	created, deleted := c.Before == zeroSHA, c.After == zeroSHA
	web := f.gdRepoWeb(repo)
	forced := !created && !deleted && !f.git.isAncestor(repo.Path, c.Before, c.After)
	compare := web + "/compare/" + pushShort(c.Before) + "..." + pushShort(c.After)
	if created {
		compare = web + "/commit/" + c.After
	}
	ev := &github.PushEvent{
		Ref: github.String(c.Ref), Before: github.String(c.Before), After: github.String(c.After),
		Created: github.Bool(created), Deleted: github.Bool(deleted), Forced: github.Bool(forced),
		Compare: github.String(compare), Sender: senderObj, Installation: inst, Organization: org,
	}
	if sender != nil {
		ev.Pusher = &github.CommitAuthor{Name: github.String(sender.Login), Email: github.String(sender.Email)}
	}
	out := &pushEventJSON{PushEvent: ev, Repo: repoJSON, Commits: []*pushEventCommit{}}
	if deleted {
		return out
	}
	head := f.git.gdPeel(repo.Path, c.After)
	// Other refs as they were: their commits are not new.
	var others []string
	for name, sha := range before {
		if name != c.Ref {
			others = append(others, sha)
		}
	}
	if created {
		for _, name := range append([]string{"refs/heads/" + repo.DefaultBranch}, slices.Sorted(maps.Keys(now))...) {
			if name != c.Ref && strings.HasPrefix(name, "refs/heads/") && now[name] == head && head != "" {
				out.BaseRef = github.String(name)
				break
			}
		}
	}
	var listed []string
	distinct := map[string]bool{}
	if strings.HasPrefix(c.Ref, "refs/heads/") && head != "" {
		// A new branch lists the commits no other ref had; an update
		// lists before..after, whether other refs had them or not.
		spec := []string{head}
		if created {
			spec = append(spec, pushNegate(others)...)
		} else {
			spec = append(spec, "^"+c.Before)
		}
		listed = f.pushRevList(repo, spec, pushCommitsLimit)
		newSpec := spec
		if !created {
			newSpec = append(append([]string{}, spec...), pushNegate(others)...)
		}
		for _, sha := range f.pushRevList(repo, newSpec, 0) {
			distinct[sha] = true
		}
	}
	shas := append(append([]string{}, listed...), head)
	if head == "" {
		shas = listed
	}
	details := f.pushCommitDetails(repo, shas)
	for _, sha := range listed {
		if d := details[sha]; d != nil {
			d.Distinct = github.Bool(distinct[sha])
			out.Commits = append(out.Commits, d)
		}
	}
	if head != "" {
		if d := details[head]; d != nil {
			hc := *d
			hcc := *d.HeadCommit
			hc.HeadCommit = &hcc
			hc.Distinct = github.Bool(distinct[head])
			out.HeadCommit = &hc
		}
	}
	// Keep go-github's view in step with what is sent.
	for _, pc := range out.Commits {
		ev.Commits = append(ev.Commits, pc.full())
	}
	if out.HeadCommit != nil {
		ev.HeadCommit = out.HeadCommit.full()
	}
	ev.BaseRef = out.BaseRef
	return out
}

func (pc *pushEventCommit) full() *github.HeadCommit {
	h := *pc.HeadCommit
	h.Added, h.Removed, h.Modified = pc.Added, pc.Removed, pc.Modified
	return &h
}

// pushShort is a sha shortened as GitHub's compare links shorten them.
func pushShort(sha string) string { return sha[:min(len(sha), 12)] }

func pushNegate(shas []string) []string {
	out := make([]string, 0, len(shas))
	for _, s := range shas {
		out = append(out, "^"+s)
	}
	return out
}

// pushRevList lists the commits of revision specs (given on stdin, so any
// number of refs may be excluded), oldest first; limit > 0 keeps the
// newest limit of them.
func (f *Forge) pushRevList(repo *Repo, spec []string, limit int) []string {
	args := []string{"rev-list", "--reverse", "--stdin"}
	if limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(limit))
	}
	out, err := f.git.run(repo.Path, []byte(strings.Join(spec, "\n")+"\n"), args...)
	if err != nil {
		f.log.WithError(err).Warn("push webhooks: rev-list")
		return nil
	}
	return strings.Fields(string(out))
}

// pushCommitDetails reads the commits of a push payload in one git call:
// message, identities, dates and the paths added, removed and modified
// (against the first parent; every path of a root commit is added).
func (f *Forge) pushCommitDetails(repo *Repo, shas []string) map[string]*pushEventCommit {
	out := map[string]*pushEventCommit{}
	if len(shas) == 0 {
		return out
	}
	args := []string{"log", "--no-walk=unsorted", "--no-renames", "--diff-merges=first-parent", "--name-status", "-z",
		"--date=raw", "--format=%x1e%H%x1f%T%x1f%an%x1f%ae%x1f%ad%x1f%cn%x1f%ce%x1f%cd%x1f%B%x1f"}
	args = append(args, shas...)
	raw, err := f.git.run(repo.Path, nil, args...)
	if err != nil {
		f.log.WithError(err).Warn("push webhooks: git log")
		return out
	}
	web := f.gdRepoWeb(repo)
	for _, chunk := range bytes.Split(raw, []byte{0x1e}) {
		fields := strings.SplitN(string(chunk), "\x1f", 10)
		if len(fields) < 10 {
			continue
		}
		sha := fields[0]
		author := gdParseSignature(fields[2] + " <" + fields[3] + "> " + fields[4])
		committer := gdParseSignature(fields[5] + " <" + fields[6] + "> " + fields[7])
		pc := &pushEventCommit{
			HeadCommit: &github.HeadCommit{
				ID: github.String(sha), TreeID: github.String(fields[1]), Distinct: github.Bool(true),
				Message:   github.String(strings.TrimRight(fields[8], "\n")),
				Timestamp: &github.Timestamp{Time: author.When},
				URL:       github.String(web + "/commit/" + sha),
				Author:    f.pushIdentity(author), Committer: f.pushIdentity(committer),
			},
			Added: []string{}, Removed: []string{}, Modified: []string{},
		}
		rest := strings.TrimLeft(fields[9], "\x00\n")
		parts := strings.Split(rest, "\x00")
		for i := 0; i+1 < len(parts); i += 2 {
			status, path := parts[i], parts[i+1]
			switch {
			case strings.HasPrefix(status, "A"):
				pc.Added = append(pc.Added, path)
			case strings.HasPrefix(status, "D"):
				pc.Removed = append(pc.Removed, path)
			case status != "":
				pc.Modified = append(pc.Modified, path)
			}
		}
		out[sha] = pc
	}
	return out
}

// pushIdentity is a commit identity of a push payload: username when the
// email belongs to an account, as GitHub links it.
func (f *Forge) pushIdentity(s gdSignature) *github.CommitAuthor {
	ca := &github.CommitAuthor{Name: github.String(s.Name), Email: github.String(s.Email)}
	if a := f.gdAccountByEmail(s.Email); a != nil {
		ca.Login = github.String(a.Login)
	}
	return ca
}
