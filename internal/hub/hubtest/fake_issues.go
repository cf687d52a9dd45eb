package hubtest

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/hub"
)

// The issue calls of Fake: labels and comments (of pull requests too),
// and issues.

// issue is the index of issue number in Issues (-1: none).
func (f *Fake) issue(number int) int {
	return slices.IndexFunc(f.Issues, func(i hub.Issue) bool { return i.Number == number })
}

// labelsOf is the labels of pull request or issue number (nil: neither).
func (f *Fake) labelsOf(number int) *[]string {
	if i := f.pull(number); i >= 0 {
		return &f.Pulls[i].Labels
	}
	if i := f.issue(number); i >= 0 {
		return &f.Issues[i].Labels
	}
	return nil
}

// AddLabels adds labels to pull request or issue number.
func (f *Fake) AddLabels(_ context.Context, _, _ string, number int, labels []string) error {
	defer f.begin("AddLabels")()
	l := f.labelsOf(number)
	if l == nil {
		return answer(http.StatusNotFound)
	}
	*l = addNames(*l, labels)
	return nil
}

// RemoveLabel removes a label (case-insensitive); 404 when absent.
func (f *Fake) RemoveLabel(_ context.Context, _, _ string, number int, label string) error {
	defer f.begin("RemoveLabel")()
	l := f.labelsOf(number)
	if l == nil {
		return answer(http.StatusNotFound)
	}
	var ok bool
	if *l, ok = removeLabel(*l, label); !ok {
		return answer(http.StatusNotFound)
	}
	return nil
}

// setCommentCount keeps a pull request's Comments in step with its
// comments.
func (f *Fake) setCommentCount(number int) {
	if i := f.pull(number); i >= 0 {
		n := len(f.Comments[number])
		f.Pulls[i].Comments = &n
	}
}

// CreateComment appends a comment with the next ID.
func (f *Fake) CreateComment(_ context.Context, owner, repo string, number int, body string) (hub.Comment, error) {
	defer f.begin("CreateComment")()
	if f.labelsOf(number) == nil {
		return hub.Comment{}, answer(http.StatusNotFound)
	}
	var ids []int64
	for _, cs := range f.Comments {
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
	}
	id, now := nextID(ids...), f.now()
	c := hub.Comment{ID: id, User: f.user(), Body: body, CreatedAt: now, UpdatedAt: now,
		HTMLURL:  fmt.Sprintf("https://github.com/%s/%s/issues/%d#issuecomment-%d", owner, repo, number, id),
		IssueURL: fmt.Sprintf("https://api.github.com/repos/%s/%s/issues/%d", owner, repo, number)}
	ensure(&f.Comments)[number] = append(f.Comments[number], c)
	f.setCommentCount(number)
	return c, nil
}

// ListComments lists Comments[number] updated at or after q.Since, by
// q.Sort ("created" or "updated", creation by default) and q.Direction
// ("asc" by default).
func (f *Fake) ListComments(_ context.Context, _, _ string, number int, q hub.CommentQuery) ([]hub.Comment, hub.Next, error) {
	defer f.begin("ListComments")()
	if f.labelsOf(number) == nil {
		return nil, hub.Next{}, answer(http.StatusNotFound)
	}
	var out []hub.Comment
	for _, c := range f.Comments[number] {
		updated := c.UpdatedAt
		if updated.IsZero() {
			updated = c.CreatedAt
		}
		if q.Since.IsZero() || !updated.Before(q.Since) {
			out = append(out, c)
		}
	}
	key := func(c hub.Comment) int64 { return c.CreatedAt.UnixNano() }
	if q.Sort == "updated" {
		key = func(c hub.Comment) int64 { return c.UpdatedAt.UnixNano() }
	}
	sort.SliceStable(out, func(i, j int) bool {
		if q.Direction == "desc" {
			return key(out[i]) > key(out[j])
		}
		return key(out[i]) < key(out[j])
	})
	return out, hub.Next{}, nil
}

// hasComment reports whether comment id exists.
func (f *Fake) hasComment(id int64) bool {
	for _, cs := range f.Comments {
		if slices.ContainsFunc(cs, func(c hub.Comment) bool { return c.ID == id }) {
			return true
		}
	}
	return false
}

// ReactToComment records the reaction in Reactions: Made the first time
// (201), not after (200); 404 when the comment is absent.
func (f *Fake) ReactToComment(_ context.Context, _, _ string, id int64, content string) (hub.Reaction, error) {
	defer f.begin("ReactToComment")()
	if !f.hasComment(id) {
		return hub.Reaction{}, answer(http.StatusNotFound)
	}
	if at, ok := f.Reactions[id][content]; ok {
		return hub.Reaction{CreatedAt: at}, nil
	}
	rs := ensure(&f.Reactions)
	if rs[id] == nil {
		rs[id] = map[string]time.Time{}
	}
	at := f.now()
	rs[id][content] = at
	return hub.Reaction{Made: true, CreatedAt: at}, nil
}

// DeleteComment deletes comment id.
func (f *Fake) DeleteComment(_ context.Context, _, _ string, id int64) error {
	defer f.begin("DeleteComment")()
	for n, cs := range f.Comments {
		if i := slices.IndexFunc(cs, func(c hub.Comment) bool { return c.ID == id }); i >= 0 {
			f.Comments[n] = slices.Delete(cs, i, i+1)
			f.setCommentCount(n)
			return nil
		}
	}
	return answer(http.StatusNotFound)
}

func cloneIssue(i hub.Issue) hub.Issue {
	i.Labels = slices.Clone(i.Labels)
	return i
}

// ListIssues lists the Issues q keeps: its State ("" open), Creator and
// Labels (all of them); in the order held, or by q.Sort ("created",
// "updated", "comments") and q.Direction ("desc" by default).
func (f *Fake) ListIssues(_ context.Context, _, _ string, q hub.IssueQuery) ([]hub.Issue, hub.Next, error) {
	defer f.begin("ListIssues")()
	var out []hub.Issue
	for _, i := range f.Issues {
		if !wantState(q.State, i.State) || q.Creator != "" && !strings.EqualFold(q.Creator, i.User.Login) {
			continue
		}
		if !slices.ContainsFunc(q.Labels, func(l string) bool { return !hub.HasLabel(i.Labels, l) }) {
			out = append(out, cloneIssue(i))
		}
	}
	key := map[string]func(hub.Issue) int64{
		"created":  func(i hub.Issue) int64 { return i.CreatedAt.UnixNano() },
		"updated":  func(i hub.Issue) int64 { return i.UpdatedAt.UnixNano() },
		"comments": func(i hub.Issue) int64 { return int64(len(f.Comments[i.Number])) },
	}[q.Sort]
	if key != nil {
		sort.SliceStable(out, func(i, j int) bool {
			if q.Direction == "asc" {
				return key(out[i]) < key(out[j])
			}
			return key(out[i]) > key(out[j])
		})
	}
	return out, hub.Next{}, nil
}

// GetIssue is issue number, or pull request number as an issue (IsPull).
func (f *Fake) GetIssue(_ context.Context, _, _ string, number int) (hub.Issue, error) {
	defer f.begin("GetIssue")()
	if i := f.issue(number); i >= 0 {
		return cloneIssue(f.Issues[i]), nil
	}
	if i := f.pull(number); i >= 0 {
		return pullIssue(f.Pulls[i]), nil
	}
	return hub.Issue{}, answer(http.StatusNotFound)
}

// pullIssue is p as the issues calls give it.
func pullIssue(p hub.Pull) hub.Issue {
	return hub.Issue{Number: p.Number, Title: p.Title, Body: p.Body, State: p.State, User: p.User,
		Labels: slices.Clone(p.Labels), HTMLURL: p.HTMLURL, IsPull: true}
}

// CreateIssue appends an open issue; 422 without a title.
func (f *Fake) CreateIssue(_ context.Context, owner, repo string, w hub.IssueWrite) (hub.Issue, error) {
	defer f.begin("CreateIssue")()
	if w.Title == "" {
		return hub.Issue{}, answer(http.StatusUnprocessableEntity, "missing_field")
	}
	if w.State != "" && !validState(w.State) {
		return hub.Issue{}, answer(http.StatusUnprocessableEntity, "invalid")
	}
	n, now := f.nextNumber(), f.now()
	i := hub.Issue{Number: n, Title: w.Title, Body: w.Body, State: "open", User: f.user(), CreatedAt: now, UpdatedAt: now,
		Labels: addNames(nil, w.Labels), HTMLURL: fmt.Sprintf("https://github.com/%s/%s/issues/%d", owner, repo, n)}
	if w.State == "closed" {
		f.close(&i, w.StateReason, now)
	}
	f.Issues = append(f.Issues, i)
	return cloneIssue(i), nil
}

// close closes i: by the fake, now, for reason ("completed" when empty).
func (f *Fake) close(i *hub.Issue, reason string, now time.Time) {
	if reason == "" {
		reason = "completed"
	}
	i.State, i.StateReason, i.ClosedAt, i.ClosedBy = "closed", reason, now, f.user()
}

// EditIssue sets w's non-empty fields (Labels when not nil) of issue, or
// pull request, number: closing stamps ClosedAt and ClosedBy, reopening
// clears them (StateReason "reopened" unless w says); 422 for a state not
// open or closed.
func (f *Fake) EditIssue(_ context.Context, _, _ string, number int, w hub.IssueWrite) (hub.Issue, error) {
	defer f.begin("EditIssue")()
	if w.State != "" && !validState(w.State) {
		return hub.Issue{}, answer(http.StatusUnprocessableEntity, "invalid")
	}
	set := func(to *string, v string) {
		if v != "" {
			*to = v
		}
	}
	edit := func(title, body, state *string, labels *[]string) {
		set(title, w.Title)
		set(body, w.Body)
		set(state, w.State)
		if w.Labels != nil {
			*labels = addNames([]string{}, w.Labels)
		}
	}
	if i := f.issue(number); i >= 0 {
		x := &f.Issues[i]
		was, now := x.State, f.now()
		edit(&x.Title, &x.Body, &x.State, &x.Labels)
		switch {
		case x.State == "closed" && was != "closed":
			f.close(x, w.StateReason, now)
		case x.State == "open" && was == "closed":
			x.StateReason, x.ClosedAt, x.ClosedBy = cmp.Or(w.StateReason, "reopened"), time.Time{}, hub.User{}
		case w.StateReason != "":
			x.StateReason = w.StateReason
		}
		x.UpdatedAt = now
		return cloneIssue(*x), nil
	}
	if i := f.pull(number); i >= 0 {
		p := &f.Pulls[i]
		edit(&p.Title, &p.Body, &p.State, &p.Labels)
		p.UpdatedAt = f.now()
		return pullIssue(*p), nil
	}
	return hub.Issue{}, answer(http.StatusNotFound)
}
