package forge

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/gorilla/mux"
)

// A pull request's page and an issue's: the body and the conversation
// rendered as markdown, the checks of the head commit with their output,
// the files and commits, and for a signed-in viewer the forms GitHub's
// page has: comment, review (approve, request changes) and merge.

func (f *Forge) webPull(w http.ResponseWriter, r *http.Request, v *webViewer) {
	web, number := webRepoPath(r), mux.Vars(r)["number"]
	base := repoPath(r) + "/pulls/" + number
	pr, ok := v.must(w, base)
	if !ok {
		return
	}
	state := str(pr, "state")
	if str(pr, "merged") == "true" {
		state = "merged"
	}
	_, files := v.get(base + "/files?per_page=100")
	_, commits := v.get(base + "/commits?per_page=100")
	_, reviews := v.get(base + "/reviews?per_page=100")
	_, comments := v.get(repoPath(r) + "/issues/" + number + "/comments?per_page=100")
	head := str(pr, "head.sha")
	_, runs := v.get(repoPath(r) + "/commits/" + head + "/check-runs?per_page=100")
	_, status := v.get(repoPath(r) + "/commits/" + head + "/status?per_page=100")

	facts := []webFact{{Label: "State", Value: state}, {Label: "Author", Value: str(pr, "user.login"), Href: "/" + url.PathEscape(str(pr, "user.login"))},
		{Label: "Wants to merge", Value: str(pr, "head.label") + " into " + str(pr, "base.ref"),
			Href: "/" + escapePath(str(pr, "head.repo.full_name")) + "/tree/" + escapePath(str(pr, "head.ref"))},
		{Label: "Repository", Value: str(pr, "base.repo.full_name"), Href: web}}
	if state == "open" {
		facts = append(facts, webFact{Label: "Mergeable", Value: mergeableWords(str(pr, "mergeable_state"))})
	}
	if sha := str(pr, "merge_commit_sha"); sha != "" && state == "merged" {
		facts = append(facts, webFact{Label: "Merge commit", Value: sha, Href: web + "/commit/" + sha})
	}
	secs := []webSection{
		checksSection(web, asMap(runs)["check_runs"], asMap(status)["statuses"]),
		conversationSection(comments, reviews),
	}
	if state == "open" {
		secs = append(secs, v.pullForms(r, web, number)...)
	}
	secs = append(secs, filesSection(files), commitsSection(web, commits))
	v.writePage(w, r, webPage{Title: str(pr, "title") + " #" + str(pr, "number"), Body: renderMarkdown(str(pr, "body")),
		Facts: facts, Sections: secs})
}

// pullForms are the forms of an open pull request's page, or the way to
// sign in for them.
func (v *webViewer) pullForms(r *http.Request, web, number string) []webSection {
	if v.formKey == "" {
		return []webSection{signInToAct(r)}
	}
	act := web + "/pull/" + number
	return []webSection{{ID: "act", Heading: "Review and merge", Forms: []webForm{
		{ID: "comment-form", Action: web + "/issues/" + number + "/comment",
			Fields:  []webField{{Name: "body", Label: "Comment", Kind: "textarea"}},
			Buttons: []webButton{{ID: "comment", Label: "Comment"}}},
		{ID: "review-form", Action: act + "/review",
			Fields: []webField{{Name: "body", Label: "Review", Kind: "textarea"}},
			Buttons: []webButton{{ID: "approve", Name: "event", Value: "APPROVE", Label: "Approve"},
				{ID: "request-changes", Name: "event", Value: "REQUEST_CHANGES", Label: "Request changes"}}},
		{ID: "merge-form", Action: act + "/merge",
			Fields:  []webField{{Name: "merge_method", Label: "Merge method", Kind: "select", Options: []string{"merge", "squash", "rebase"}}},
			Buttons: []webButton{{ID: "merge", Label: "Merge pull request"}}},
	}}}
}

func signInToAct(r *http.Request) webSection {
	return webSection{ID: "act", Heading: "Take part", Note: "Sign in to comment, review or merge.",
		NoteHref: "/login?return_to=" + url.QueryEscape(r.URL.RequestURI())}
}

func (f *Forge) webIssue(w http.ResponseWriter, r *http.Request, v *webViewer) {
	is, ok := v.must(w, repoPath(r)+"/issues/"+mux.Vars(r)["number"])
	if !ok {
		return
	}
	if str(is, "pull_request.url") != "" {
		f.webPull(w, r, v) // a pull request's issue is shown as the pull request, as on GitHub
		return
	}
	web, number := webRepoPath(r), mux.Vars(r)["number"]
	base := repoPath(r) + "/issues/" + number
	_, comments := v.get(base + "/comments?per_page=100")
	var labels []string
	for _, l := range items(asMap(is)["labels"]) {
		labels = append(labels, str(l, "name"))
	}
	secs := []webSection{conversationSection(comments, nil)}
	switch {
	case v.formKey == "":
		secs = append(secs, signInToAct(r))
	default:
		secs = append(secs, webSection{ID: "act", Heading: "Comment", Forms: []webForm{{ID: "comment-form",
			Action: web + "/issues/" + number + "/comment", Fields: []webField{{Name: "body", Label: "Comment", Kind: "textarea"}},
			Buttons: []webButton{{ID: "comment", Label: "Comment"}}}}})
	}
	v.writePage(w, r, webPage{Title: str(is, "title") + " #" + str(is, "number"), Body: renderMarkdown(str(is, "body")),
		Facts: []webFact{{Label: "State", Value: str(is, "state")},
			{Label: "Author", Value: str(is, "user.login"), Href: "/" + url.PathEscape(str(is, "user.login"))},
			{Label: "Labels", Value: strings.Join(labels, ", ")}, {Label: "Repository", Value: strings.TrimPrefix(web, "/"), Href: web}},
		Sections: secs})
}

// checksSection shows the head commit's check runs (conclusion in words,
// title and summary as markdown, a link to the run's page) and commit
// statuses.
func checksSection(web string, runs, statuses any) webSection {
	sec := webSection{ID: "checks", Heading: "Checks"}
	for _, run := range items(runs) {
		outcome := str(run, "conclusion")
		if outcome == "" {
			outcome = str(run, "status")
		}
		body := str(run, "output.summary")
		if t := str(run, "output.title"); t != "" {
			body = "**" + t + "**\n\n" + body
		}
		sec.Entries = append(sec.Entries, webEntry{ID: "check-" + slug(str(run, "name")), Who: str(run, "name"),
			WhoHref: web + "/runs/" + str(run, "id"), What: checkWords(outcome), Body: renderMarkdown(body)})
	}
	for _, st := range items(statuses) {
		sec.Entries = append(sec.Entries, webEntry{ID: "status-" + slug(str(st, "context")), Who: str(st, "context"),
			WhoHref: str(st, "target_url"), What: checkWords(str(st, "state")), Body: renderMarkdown(str(st, "description"))})
	}
	if len(sec.Entries) == 0 {
		sec.Note = "No checks yet."
	}
	return sec
}

// checkWords says a check's conclusion, status or commit state in words.
func checkWords(s string) string {
	switch s {
	case "success":
		return "passed"
	case "failure", "error":
		return "failed"
	case "action_required":
		return "needs action"
	case "timed_out":
		return "timed out"
	case "in_progress":
		return "in progress"
	case "":
		return "pending"
	}
	return strings.ReplaceAll(s, "_", " ")
}

func mergeableWords(s string) string {
	switch s {
	case "clean":
		return "yes: every required check passed"
	case "blocked":
		return "blocked: a required check or review is missing"
	case "dirty":
		return "no: conflicts with the base branch"
	case "unstable":
		return "yes, with failing checks that are not required"
	case "behind":
		return "the head branch is behind the base"
	case "":
		return "not known yet"
	}
	return s
}

// conversationSection merges the comments and the submitted reviews in
// the order they were made, each with its body as markdown.
func conversationSection(comments, reviews any) webSection {
	type timed struct {
		at string
		e  webEntry
	}
	var all []timed
	for _, c := range items(comments) {
		login := str(c, "user.login")
		all = append(all, timed{str(c, "created_at"), webEntry{ID: "comment-" + str(c, "id"), Who: login,
			WhoHref: "/" + url.PathEscape(login), What: "commented", When: str(c, "created_at"), Body: renderMarkdown(str(c, "body"))}})
	}
	for _, rv := range items(reviews) {
		what := map[string]string{"APPROVED": "approved", "CHANGES_REQUESTED": "requested changes",
			"COMMENTED": "reviewed", "DISMISSED": "reviewed (dismissed)"}[str(rv, "state")]
		if what == "" {
			continue // pending: not submitted
		}
		login := str(rv, "user.login")
		all = append(all, timed{str(rv, "submitted_at"), webEntry{ID: "review-" + str(rv, "id"), Who: login,
			WhoHref: "/" + url.PathEscape(login), What: what, When: str(rv, "submitted_at"), Body: renderMarkdown(str(rv, "body"))}})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	sec := webSection{ID: "conversation", Heading: "Conversation"}
	for _, t := range all {
		sec.Entries = append(sec.Entries, t.e)
	}
	if len(sec.Entries) == 0 {
		sec.Note = "No comments yet."
	}
	return sec
}

func filesSection(files any) webSection {
	return webSection{ID: "files", Heading: "Files changed", Columns: []string{"File", "Status", "+", "-"},
		Rows: rows(files, "filename", "status", "additions", "deletions")}
}

func commitsSection(web string, commits any) webSection {
	rs := rows(commits, "sha", "commit.message")
	return webSection{ID: "commits", Heading: "Commits", Columns: []string{"Commit", "Message"},
		Rows: linkColumn(rs, commits, 0, func(c any) string { return web + "/commit/" + str(c, "sha") })}
}

// slug makes a name an element id: letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
