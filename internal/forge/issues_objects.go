package forge

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Builders of issue, comment, label and reaction objects, shared by the
// REST answers and the webhook payloads. They work on views: copies taken
// under repo.mu, so that building (which calls repoObject and permission,
// both locking repo.mu) happens with the lock released.

// issueView is a copy, taken under repo.mu, of an issue (and of its pull
// request, for one) with what their JSON objects need.
type issueView struct {
	Issue     Issue
	Pull      *Pull // a copy; nil for a plain issue. Its Issue field is nil.
	Labels    []Label
	Comments  int
	Reactions map[string]int
}

// viewIssueLocked copies an issue. The caller holds repo.mu.
func viewIssueLocked(repo *Repo, is *Issue) issueView {
	return viewIssuesLocked(repo, []*Issue{is})[0]
}

// viewIssuesLocked copies issues, counting comments and reactions in one
// pass. The caller holds repo.mu.
func viewIssuesLocked(repo *Repo, issues []*Issue) []issueView {
	comments := map[int]int{}
	for _, c := range repo.Comments {
		comments[c.IssueNum]++
	}
	reactions := map[int]map[string]int{}
	for _, re := range repo.Reactions {
		if re.SubjectKind == "issue" {
			n := int(re.SubjectID)
			if reactions[n] == nil {
				reactions[n] = map[string]int{}
			}
			reactions[n][re.Content]++
		}
	}
	out := make([]issueView, 0, len(issues))
	for _, is := range issues {
		v := issueView{Issue: *is, Comments: comments[is.Number], Reactions: reactions[is.Number]}
		v.Issue.Labels = append([]string(nil), is.Labels...)
		v.Issue.Assignees = append([]string(nil), is.Assignees...)
		if is.ClosedAt != nil {
			t := *is.ClosedAt
			v.Issue.ClosedAt = &t
		}
		if pr := repo.Pulls[is.Number]; is.IsPull && pr != nil {
			p := *pr
			p.Issue = nil
			p.RequestedReviewers = append([]string(nil), pr.RequestedReviewers...)
			if pr.MergedAt != nil {
				t := *pr.MergedAt
				p.MergedAt = &t
			}
			v.Pull = &p
		}
		for _, name := range is.Labels {
			if l := repo.Labels[strings.ToLower(name)]; l != nil {
				v.Labels = append(v.Labels, *l)
			}
		}
		out = append(out, v)
	}
	return out
}

// reactionCountsLocked counts the reactions to one subject by content.
// The caller holds repo.mu.
func reactionCountsLocked(repo *Repo, kind string, id int64) map[string]int {
	m := map[string]int{}
	for _, re := range repo.Reactions {
		if re.SubjectKind == kind && re.SubjectID == id {
			m[re.Content]++
		}
	}
	return m
}

// repoURLs are a repository's API and web roots.
func (f *Forge) repoURLs(repo *Repo) (api, web string) {
	full := repo.FullName()
	return f.apiBase() + "/repos/" + full, f.webBase() + "/" + full
}

// authorAssociation is GitHub's author_association of an account on a
// repository: OWNER, MEMBER, COLLABORATOR or NONE.
func (f *Forge) authorAssociation(repo *Repo, a *Account) string {
	if a == nil {
		return "NONE"
	}
	if a.ID == repo.Owner.ID {
		return "OWNER"
	}
	if a.Type == "Bot" {
		return "NONE"
	}
	login := strings.ToLower(a.Login)
	if o, ok := f.org(repo.Owner.Login); ok && o.Members[login] {
		return "MEMBER"
	}
	repo.mu.Lock()
	_, collab := repo.Collaborators[login]
	repo.mu.Unlock()
	if collab {
		return "COLLABORATOR"
	}
	return "NONE"
}

// usersObjects turns logins into user objects, skipping unknown ones.
func (f *Forge) usersObjects(logins []string) []*github.User {
	out := []*github.User{}
	for _, l := range logins {
		if a, ok := f.Account(l); ok {
			out = append(out, f.userObject(a))
		}
	}
	return out
}

// reactionContents are the reactions GitHub knows, in its order.
var reactionContents = []string{"+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"}

func validReaction(c string) bool {
	for _, k := range reactionContents {
		if k == c {
			return true
		}
	}
	return false
}

// reactionsObject is the "reactions" summary of an issue or a comment.
func reactionsObject(u string, counts map[string]int) *github.Reactions {
	total := 0
	for _, n := range counts {
		total += n
	}
	return &github.Reactions{
		URL: github.String(u), TotalCount: github.Int(total),
		PlusOne: github.Int(counts["+1"]), MinusOne: github.Int(counts["-1"]), Laugh: github.Int(counts["laugh"]),
		Hooray: github.Int(counts["hooray"]), Confused: github.Int(counts["confused"]), Heart: github.Int(counts["heart"]),
		Rocket: github.Int(counts["rocket"]), Eyes: github.Int(counts["eyes"]),
	}
}

// labelObject is a label.
func (f *Forge) labelObject(repo *Repo, l Label) *github.Label {
	api, _ := f.repoURLs(repo)
	return &github.Label{
		ID: github.Int64(l.ID), NodeID: github.String(nodeID("Label", l.ID)),
		URL:  github.String(api + "/labels/" + url.PathEscape(l.Name)),
		Name: github.String(l.Name), Color: github.String(l.Color),
		Description: github.String(l.Description), Default: github.Bool(false),
	}
}

func (f *Forge) labelObjects(repo *Repo, ls []Label) []*github.Label {
	out := []*github.Label{}
	for _, l := range ls {
		out = append(out, f.labelObject(repo, l))
	}
	return out
}

// issueObject is an issue; for a pull request, the issue half with its
// "pull_request" links, as GitHub lists pull requests among issues.
func (f *Forge) issueObject(repo *Repo, v issueView) *github.Issue {
	api, web := f.repoURLs(repo)
	is := v.Issue
	self := fmt.Sprintf("%s/issues/%d", api, is.Number)
	html := fmt.Sprintf("%s/issues/%d", web, is.Number)
	if v.Pull != nil {
		html = fmt.Sprintf("%s/pull/%d", web, is.Number)
	}
	obj := &github.Issue{
		ID: github.Int64(is.ID), NodeID: github.String(nodeID("Issue", is.ID)),
		Number: github.Int(is.Number), State: github.String(is.State), Locked: github.Bool(is.Locked),
		Title: github.String(is.Title), User: f.userObject(is.User),
		AuthorAssociation: github.String(f.authorAssociation(repo, is.User)),
		Labels:            f.labelObjects(repo, v.Labels),
		Assignees:         f.usersObjects(is.Assignees),
		Comments:          github.Int(v.Comments),
		CreatedAt:         ts(is.CreatedAt), UpdatedAt: ts(is.UpdatedAt),
		URL: github.String(self), HTMLURL: github.String(html),
		RepositoryURL: github.String(api),
		CommentsURL:   github.String(self + "/comments"),
		EventsURL:     github.String(self + "/events"),
		LabelsURL:     github.String(self + "/labels{/name}"),
		Reactions:     reactionsObject(self+"/reactions", v.Reactions),
		Draft:         github.Bool(v.Pull != nil && v.Pull.Draft),
	}
	if is.Body != "" {
		obj.Body = github.String(is.Body)
	}
	if len(obj.Assignees) > 0 {
		obj.Assignee = obj.Assignees[0]
	}
	if is.ClosedAt != nil {
		obj.ClosedAt = ts(*is.ClosedAt)
	}
	if is.ClosedBy != nil && v.Pull == nil && is.State == "closed" {
		obj.ClosedBy = f.userObject(is.ClosedBy)
	}
	if v.Pull != nil {
		links := &github.PullRequestLinks{
			URL:      github.String(fmt.Sprintf("%s/pulls/%d", api, is.Number)),
			HTMLURL:  github.String(html),
			DiffURL:  github.String(html + ".diff"),
			PatchURL: github.String(html + ".patch"),
		}
		if v.Pull.MergedAt != nil {
			links.MergedAt = ts(*v.Pull.MergedAt)
		}
		obj.PullRequestLinks = links
	}
	return obj
}

// commentView is a copy of a comment with what its object needs.
type commentView struct {
	Comment   Comment
	IsPull    bool
	Reactions map[string]int
}

// viewCommentsLocked copies comments (sorted by id). The caller holds
// repo.mu.
func viewCommentsLocked(repo *Repo, cs []*Comment) []commentView {
	reactions := map[int64]map[string]int{}
	for _, re := range repo.Reactions {
		if re.SubjectKind == "comment" {
			if reactions[re.SubjectID] == nil {
				reactions[re.SubjectID] = map[string]int{}
			}
			reactions[re.SubjectID][re.Content]++
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	out := make([]commentView, 0, len(cs))
	for _, c := range cs {
		is := repo.Issues[c.IssueNum]
		out = append(out, commentView{Comment: *c, IsPull: is != nil && is.IsPull, Reactions: reactions[c.ID]})
	}
	return out
}

// commentObject is an issue (or pull request conversation) comment.
func (f *Forge) commentObject(repo *Repo, v commentView) *github.IssueComment {
	api, web := f.repoURLs(repo)
	c := v.Comment
	self := fmt.Sprintf("%s/issues/comments/%d", api, c.ID)
	kind := "issues"
	if v.IsPull {
		kind = "pull"
	}
	return &github.IssueComment{
		ID: github.Int64(c.ID), NodeID: github.String(nodeID("IssueComment", c.ID)),
		Body: github.String(c.Body), User: f.userObject(c.User),
		CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),
		AuthorAssociation: github.String(f.authorAssociation(repo, c.User)),
		URL:               github.String(self),
		HTMLURL:           github.String(fmt.Sprintf("%s/%s/%d#issuecomment-%d", web, kind, c.IssueNum, c.ID)),
		IssueURL:          github.String(fmt.Sprintf("%s/issues/%d", api, c.IssueNum)),
		Reactions:         reactionsObject(self+"/reactions", v.Reactions),
	}
}

// reactionObject is one reaction.
func (f *Forge) reactionObject(re Reaction) *reactionJSON {
	return &reactionJSON{Reaction: &github.Reaction{
		ID: github.Int64(re.ID), NodeID: github.String(nodeID("Reaction", re.ID)),
		User: f.userObject(re.User), Content: github.String(re.Content),
	}, CreatedAt: ts(re.CreatedAt)}
}

// reactionJSON is a reaction with the created_at go-github's type lacks.
type reactionJSON struct {
	*github.Reaction
	CreatedAt *github.Timestamp `json:"created_at"`
}

// unprocessable is GitHub's 422 whose errors are plain strings, as it
// answers e.g. a self-approval.
func unprocessable(w http.ResponseWriter, msgs ...string) {
	writeRaw(w, http.StatusUnprocessableEntity, struct {
		Message          string   `json:"message"`
		Errors           []string `json:"errors"`
		DocumentationURL string   `json:"documentation_url"`
		Status           string   `json:"status"`
	}{"Unprocessable Entity", msgs, docsURL, "422"})
}
