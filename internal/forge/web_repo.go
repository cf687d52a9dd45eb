package forge

import (
	"net/http"
	"net/url"
)

// The forge's home page (the viewer's repositories) and a repository's
// page: its pull requests, issues, releases and branches, linked to their
// pages, and for a signed-in viewer the forms to open a pull request and
// an issue.

func (f *Forge) webHome(w http.ResponseWriter, r *http.Request, v *webViewer) {
	if v.p == nil || v.p.kind != principalUser {
		v.writePage(w, r, webPage{Title: "local forge", Sections: []webSection{{Heading: "Repositories",
			Note: "Sign in to see your repositories.", NoteHref: "/login?return_to=/"}}})
		return
	}
	_, repos := v.get("/user/repos?per_page=100&sort=full_name")
	rs := rows(repos, "full_name", "description", "visibility")
	v.writePage(w, r, webPage{Title: "local forge", Sections: []webSection{{ID: "repositories", Heading: "Your repositories",
		Columns: []string{"Repository", "Description", "Visibility"},
		Rows:    linkColumn(rs, repos, 0, func(it any) string { return "/" + escapePath(str(it, "full_name")) })}}})
}

func (f *Forge) webRepo(w http.ResponseWriter, r *http.Request, v *webViewer) {
	base := repoPath(r)
	repo, ok := v.must(w, base)
	if !ok {
		return
	}
	web := webRepoPath(r)
	_, pulls := v.get(base + "/pulls?state=all&per_page=100")
	_, issues := v.get(base + "/issues?state=all&per_page=100")
	_, releases := v.get(base + "/releases?per_page=100")
	_, branches := v.get(base + "/branches?per_page=100")
	var onlyIssues []any
	for _, is := range items(issues) {
		if str(is, "pull_request.url") == "" {
			onlyIssues = append(onlyIssues, is)
		}
	}
	pullRows := linkColumn(rows(pulls, "title", "number", "state", "user.login"), pulls, 0,
		func(it any) string { return web + "/pull/" + str(it, "number") })
	issueRows := linkColumn(rows(onlyIssues, "title", "number", "state", "user.login"), onlyIssues, 0,
		func(it any) string { return web + "/issues/" + str(it, "number") })
	releaseRows := linkColumn(rows(releases, "tag_name", "name"), releases, 0,
		func(it any) string { return web + "/releases/tag/" + escapePath(str(it, "tag_name")) })
	branchRows := linkColumn(rows(branches, "name", "commit.sha"), branches, 0,
		func(it any) string { return web + "/tree/" + escapePath(str(it, "name")) })
	secs := []webSection{
		{ID: "pulls", Heading: "Pull requests", Columns: []string{"Title", "#", "State", "Author"}, Rows: pullRows},
		{ID: "issues", Heading: "Issues", Columns: []string{"Title", "#", "State", "Author"}, Rows: issueRows},
		{ID: "releases", Heading: "Releases", Columns: []string{"Tag", "Name"}, Rows: releaseRows},
		{ID: "branches", Heading: "Branches", Columns: []string{"Branch", "Head"}, Rows: branchRows},
	}
	if v.formKey == "" {
		secs = append(secs, webSection{ID: "act", Heading: "Take part", Note: "Sign in to open pull requests and issues.",
			NoteHref: "/login?return_to=" + url.QueryEscape(r.URL.RequestURI())})
	} else {
		def := str(repo, "default_branch")
		heads := []string{}
		for _, b := range items(branches) {
			if n := str(b, "name"); n != def {
				heads = append(heads, n)
			}
		}
		secs = append(secs,
			webSection{ID: "new-pull", Heading: "Open a pull request", Forms: []webForm{{ID: "new-pull-form", Action: web + "/pulls",
				Fields: []webField{{Name: "head", Label: "Branch", Kind: "select", Options: heads},
					{Name: "base", Label: "Into", Kind: "select", Options: []string{def}},
					{Name: "title", Label: "Title", Kind: "text"}, {Name: "body", Label: "Description", Kind: "textarea"}},
				Buttons: []webButton{{ID: "open-pull", Label: "Open pull request"}}}}},
			webSection{ID: "new-issue", Heading: "Open an issue", Forms: []webForm{{ID: "new-issue-form", Action: web + "/issues",
				Fields:  []webField{{Name: "title", Label: "Title", Kind: "text"}, {Name: "body", Label: "Description", Kind: "textarea"}},
				Buttons: []webButton{{ID: "open-issue", Label: "Open issue"}}}}})
	}
	v.writePage(w, r, webPage{Title: str(repo, "full_name"), Text: str(repo, "description"),
		Facts: []webFact{{Label: "Default branch", Value: str(repo, "default_branch")}, {Label: "Visibility", Value: str(repo, "visibility")},
			{Label: "Clone", Value: str(repo, "clone_url")}},
		Sections: secs})
}
