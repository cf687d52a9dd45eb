package github

import (
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/hub"
)

// Converters from go-github's values (REST answers, webhook payloads) to
// porchbot's own (package hub). Each is nil-safe: nil gives the zero
// value; a missing time is the zero time.

// PullOf is p as a hub.Pull (Comments nil when p does not say, as in
// listings).
func PullOf(p *github.PullRequest) hub.Pull {
	if p == nil {
		return hub.Pull{}
	}
	out := hub.Pull{
		Number:         p.GetNumber(),
		Title:          p.GetTitle(),
		Body:           p.GetBody(),
		State:          p.GetState(),
		Draft:          p.GetDraft(),
		Merged:         p.GetMerged(),
		MergedAt:       p.GetMergedAt().Time,
		MergeCommitSHA: p.GetMergeCommitSHA(),
		CreatedAt:      p.GetCreatedAt().Time,
		UpdatedAt:      p.GetUpdatedAt().Time,
		User:           UserOf(p.GetUser()),
		Head:           BranchOf(p.GetHead()),
		Base:           BranchOf(p.GetBase()),
		Labels:         LabelsOf(p.Labels),
		HTMLURL:        p.GetHTMLURL(),
	}
	if p.Comments != nil {
		n := *p.Comments
		out.Comments = &n
	}
	return out
}

// BranchOf is b (a pull request's head or base) as a hub.Branch; its
// repository fields stay empty when b names no repository.
func BranchOf(b *github.PullRequestBranch) hub.Branch {
	if b == nil {
		return hub.Branch{}
	}
	r := b.GetRepo()
	return hub.Branch{
		Ref:          b.GetRef(),
		SHA:          b.GetSHA(),
		Label:        b.GetLabel(),
		RepoOwner:    r.GetOwner().GetLogin(),
		RepoName:     r.GetName(),
		RepoFullName: r.GetFullName(),
		RepoHTMLURL:  r.GetHTMLURL(),
		RepoPrivate:  r.GetPrivate(),
		RepoFork:     r.GetFork(),
	}
}

// UserOf is u as a hub.User.
func UserOf(u *github.User) hub.User {
	if u == nil {
		return hub.User{}
	}
	return hub.User{Login: u.GetLogin(), Type: u.GetType()}
}

// ReviewOf is r as a hub.Review.
func ReviewOf(r *github.PullRequestReview) hub.Review {
	if r == nil {
		return hub.Review{}
	}
	return hub.Review{
		ID:          r.GetID(),
		User:        UserOf(r.GetUser()),
		State:       r.GetState(),
		CommitID:    r.GetCommitID(),
		Body:        r.GetBody(),
		SubmittedAt: r.GetSubmittedAt().Time,
	}
}

// CommentOf is c (an issue or pull request comment) as a hub.Comment.
func CommentOf(c *github.IssueComment) hub.Comment {
	if c == nil {
		return hub.Comment{}
	}
	return hub.Comment{
		ID:        c.GetID(),
		User:      UserOf(c.GetUser()),
		Body:      c.GetBody(),
		HTMLURL:   c.GetHTMLURL(),
		IssueURL:  c.GetIssueURL(),
		CreatedAt: c.GetCreatedAt().Time,
		UpdatedAt: c.GetUpdatedAt().Time,
	}
}

// CheckRunOf is r as a hub.CheckRun, its output's annotations included
// (GitHub lists them only in a run's webhook and the annotations call).
func CheckRunOf(r *github.CheckRun) hub.CheckRun {
	if r == nil {
		return hub.CheckRun{}
	}
	out := hub.CheckRun{
		ID:          r.GetID(),
		Name:        r.GetName(),
		HeadSHA:     r.GetHeadSHA(),
		Status:      r.GetStatus(),
		Conclusion:  r.GetConclusion(),
		ExternalID:  r.GetExternalID(),
		DetailsURL:  r.GetDetailsURL(),
		HTMLURL:     r.GetHTMLURL(),
		AppSlug:     r.GetApp().GetSlug(),
		StartedAt:   r.GetStartedAt().Time,
		CompletedAt: r.GetCompletedAt().Time,
	}
	if o := r.GetOutput(); o != nil {
		out.Output = hub.CheckOutput{Title: o.GetTitle(), Summary: o.GetSummary(), Text: o.GetText()}
		for _, a := range o.Annotations {
			if a != nil {
				out.Output.Annotations = append(out.Output.Annotations, annotationOf(a))
			}
		}
	}
	return out
}

func annotationOf(a *github.CheckRunAnnotation) hub.CheckAnnotation {
	return hub.CheckAnnotation{
		Path:        a.GetPath(),
		StartLine:   a.GetStartLine(),
		EndLine:     a.GetEndLine(),
		StartColumn: a.GetStartColumn(),
		EndColumn:   a.GetEndColumn(),
		Level:       a.GetAnnotationLevel(),
		Title:       a.GetTitle(),
		Message:     a.GetMessage(),
		RawDetails:  a.GetRawDetails(),
	}
}

// RepositoryOf is r as a hub.Repository. Visibility is r's, lower-cased;
// when GitHub did not say it, "private" or "public" as r.Private says,
// and "" when that is not said either.
func RepositoryOf(r *github.Repository) hub.Repository {
	if r == nil {
		return hub.Repository{}
	}
	vis := strings.ToLower(r.GetVisibility())
	if vis == "" && r.Private != nil {
		vis = "public"
		if *r.Private {
			vis = "private"
		}
	}
	return hub.Repository{
		Owner:         r.GetOwner().GetLogin(),
		Name:          r.GetName(),
		FullName:      r.GetFullName(),
		DefaultBranch: r.GetDefaultBranch(),
		HTMLURL:       r.GetHTMLURL(),
		Private:       r.GetPrivate(),
		Visibility:    vis,
		Fork:          r.GetFork(),
		Archived:      r.GetArchived(),
		Topics:        r.Topics,
		OpenIssues:    r.GetOpenIssuesCount(),
	}
}

// IssueOf is i as a hub.Issue (IsPull when i is a pull request's).
func IssueOf(i *github.Issue) hub.Issue {
	if i == nil {
		return hub.Issue{}
	}
	return hub.Issue{
		Number:      i.GetNumber(),
		Title:       i.GetTitle(),
		Body:        i.GetBody(),
		State:       i.GetState(),
		StateReason: i.GetStateReason(),
		User:        UserOf(i.GetUser()),
		CreatedAt:   i.GetCreatedAt().Time,
		UpdatedAt:   i.GetUpdatedAt().Time,
		ClosedAt:    i.GetClosedAt().Time,
		ClosedBy:    UserOf(i.GetClosedBy()),
		Labels:      LabelsOf(i.Labels),
		HTMLURL:     i.GetHTMLURL(),
		IsPull:      i.IsPullRequest(),
	}
}

// ReleaseOf is r as a hub.Release.
func ReleaseOf(r *github.RepositoryRelease) hub.Release {
	if r == nil {
		return hub.Release{}
	}
	return hub.Release{
		ID:              r.GetID(),
		TagName:         r.GetTagName(),
		Name:            r.GetName(),
		Body:            r.GetBody(),
		TargetCommitish: r.GetTargetCommitish(),
		HTMLURL:         r.GetHTMLURL(),
		Draft:           r.GetDraft(),
		Prerelease:      r.GetPrerelease(),
		CreatedAt:       r.GetCreatedAt().Time,
	}
}

// LabelsOf is the names of labels: nil when GitHub did not say (labels
// nil), empty when it said there are none, as the lifecycle tells the two
// apart (an unknown label set is asked about).
func LabelsOf(labels []*github.Label) []string {
	if labels == nil {
		return nil
	}
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		if l != nil {
			out = append(out, l.GetName())
		}
	}
	return out
}

// ActivityOf is a as a hub.Activity (Actor the actor's login).
func ActivityOf(a *Activity) hub.Activity {
	if a == nil {
		return hub.Activity{}
	}
	out := hub.Activity{Before: a.Before, After: a.After, Ref: a.Ref, Type: a.ActivityType, Actor: a.Actor.GetLogin()}
	if a.Timestamp != nil {
		out.Timestamp = a.Timestamp.Time
	}
	return out
}
