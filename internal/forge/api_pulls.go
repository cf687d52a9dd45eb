package forge

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesPulls serves pull requests: create, list, get (JSON, diff or
// patch), update, their files and commits, merge and merge status,
// requested reviewers, and the pull requests of a commit.
func (f *Forge) routesPulls(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/pulls", f.repoHandler(PermRead, f.listPulls)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls", f.repoHandler(PermRead, signedIn(withBody(f.createPull)))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}", f.repoHandler(PermRead, onPull(f.getPull))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}", f.repoHandler(PermRead, onPull(signedIn(withBody(f.updatePull))))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/files", f.repoHandler(PermRead, onPull(f.listPullFiles))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/commits", f.repoHandler(PermRead, onPull(f.listPullCommits))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/merge", f.repoHandler(PermRead, onPull(f.getPullMerged))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/merge", f.repoHandler(PermWrite, onPull(signedIn(withBody(f.mergePullHandler))))).Methods(http.MethodPut)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/requested_reviewers", f.repoHandler(PermRead, onPull(f.listRequestedReviewers))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/requested_reviewers", f.repoHandler(PermRead, onPull(signedIn(withBody(f.requestReviewers))))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/pulls/{number}/requested_reviewers", f.repoHandler(PermRead, onPull(signedIn(withBody(f.removeRequestedReviewers))))).Methods(http.MethodDelete)
	api.HandleFunc("/repos/{owner}/{repo}/commits/{sha}/pulls", f.repoHandler(PermRead, f.listPullsWithCommit)).Methods(http.MethodGet)
}

// viewPull copies pull request n (which exists) under repo.mu.
func viewPull(repo *Repo, n int) issueView {
	repo.mu.Lock()
	defer repo.mu.Unlock()
	return viewIssueLocked(repo, repo.Pulls[n].Issue)
}

// createPullRequest is the body of POST /pulls.
type createPullRequest struct {
	Title               *string `json:"title"`
	Head                string  `json:"head"`
	HeadRepo            string  `json:"head_repo"`
	Base                string  `json:"base"`
	Body                *string `json:"body"`
	Draft               bool    `json:"draft"`
	MaintainerCanModify *bool   `json:"maintainer_can_modify"`
	Issue               *int    `json:"issue"`
}

// openPullLocked is the open pull request from head (a branch of
// headRepo: nil for the repository's own) into base, if any.
func openPullLocked(repo, headRepo *Repo, head, base string) *Pull {
	for _, pr := range repo.Pulls {
		if pr.Issue.State == "open" && pr.HeadRepo == headRepo && pr.Head == head && pr.Base == base {
			return pr
		}
	}
	return nil
}

// createPull opens a pull request. Heads are branches of the same
// repository ("branch" or "owner:branch"); anyone who can read the
// repository may open one, as on GitHub.
func (f *Forge) createPull(w http.ResponseWriter, r *http.Request, rc *reqCtx, req createPullRequest) {
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		validationFailed(w, "PullRequest", "title", "missing_field", "")
		return
	}
	head := req.Head
	var headRepo *Repo // a fork's branch (forks.go); nil: the repository's own
	if owner, branch, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(owner, rc.repo.Owner.Login) {
			if headRepo = f.forkOf(rc.repo, owner); headRepo == nil {
				validationFailed(w, "PullRequest", "head", "invalid", "")
				return
			}
		}
		head = branch
	}
	if req.HeadRepo != "" && !strings.EqualFold(req.HeadRepo, rc.repo.FullName()) && !strings.EqualFold(req.HeadRepo, rc.repo.Name) {
		owner, _, _ := strings.Cut(req.HeadRepo, "/")
		fork := f.forkOf(rc.repo, owner)
		if fork == nil || !strings.EqualFold(req.HeadRepo, fork.FullName()) || headRepo != nil && headRepo != fork {
			validationFailed(w, "PullRequest", "head_repo", "invalid", "")
			return
		}
		headRepo = fork
	}
	if head == "" {
		validationFailed(w, "PullRequest", "head", "missing_field", "")
		return
	}
	if req.Base == "" {
		validationFailed(w, "PullRequest", "base", "missing_field", "")
		return
	}
	now := f.now()
	rc.repo.mu.Lock()
	headOwner, headPath := rc.repo.Owner.Login, rc.repo.Path
	if headRepo != nil {
		headOwner, headPath = headRepo.Owner.Login, headRepo.Path
	}
	headSHA, herr := f.git.resolve(headPath, "refs/heads/"+head)
	baseSHA, berr := f.git.resolve(rc.repo.Path, "refs/heads/"+req.Base)
	if herr == nil && headRepo != nil {
		// The fork's commits, in the parent as the pull request's head.
		herr = f.publishPullHeadLocked(rc.repo, rc.repo.nextNumber, headRepo, head, headSHA)
	}
	var fail func()
	switch {
	case herr != nil:
		fail = func() { validationFailed(w, "PullRequest", "head", "invalid", "") }
	case berr != nil:
		fail = func() { validationFailed(w, "PullRequest", "base", "invalid", "") }
	case openPullLocked(rc.repo, headRepo, head, req.Base) != nil:
		fail = func() {
			validationFailed(w, "PullRequest", "", "custom",
				fmt.Sprintf("A pull request already exists for %s:%s.", headOwner, head))
		}
	case f.git.isAncestor(rc.repo.Path, headSHA, baseSHA):
		fail = func() {
			validationFailed(w, "PullRequest", "", "custom", fmt.Sprintf("No commits between %s and %s", req.Base, head))
		}
	}
	if fail == nil {
		if mb, _ := f.git.mergeBase(rc.repo.Path, baseSHA, headSHA); mb == "" {
			fail = func() {
				validationFailed(w, "PullRequest", "", "custom",
					fmt.Sprintf("The %s branch has no history in common with %s", head, req.Base))
			}
		}
	}
	if fail != nil {
		if headRepo != nil {
			_, _ = f.git.run(rc.repo.Path, nil, "update-ref", "-d", pullHeadRef(rc.repo.nextNumber))
		}
		rc.repo.mu.Unlock()
		fail()
		return
	}
	is := &Issue{ID: f.newID(), Number: rc.repo.nextNumber, Title: *req.Title, State: "open", User: rc.actor(),
		CreatedAt: now, UpdatedAt: now, IsPull: true}
	if req.Body != nil {
		is.Body = *req.Body
	}
	rc.repo.nextNumber++
	pr := &Pull{Issue: is, ID: f.newID(), Head: head, HeadRepo: headRepo, HeadSHA: headSHA, Base: req.Base, BaseSHA: baseSHA,
		Draft: req.Draft, MaintainerCanModify: req.MaintainerCanModify != nil && *req.MaintainerCanModify}
	if err := f.publishPullHeadLocked(rc.repo, is.Number, nil, head, headSHA); err != nil {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	rc.repo.Issues[is.Number] = is
	rc.repo.Pulls[is.Number] = pr
	rc.repo.UpdatedAt = now
	v := viewIssueLocked(rc.repo, is)
	rc.repo.mu.Unlock()

	f.emitPull(rc.repo, pullEvent{view: v, action: "opened", sender: rc.actor()})
	obj := f.pullObject(rc.repo, v, true)
	w.Header().Set("Location", obj.GetURL())
	writeJSON(w, r, http.StatusCreated, obj)
}

// listPulls lists pull requests: state (open, closed, all), head
// ("owner:branch"), base, sort (created, updated, popularity,
// long-running), direction, paginated. Items are GitHub's "simple" objects.
func (f *Forge) listPulls(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		validationFailed(w, "PullRequest", "state", "invalid", "")
		return
	}
	headFilter := q.Get("head")
	var headRepoFilter *Repo // "owner:branch" of a fork
	if owner, branch, ok := strings.Cut(headFilter, ":"); ok {
		if !strings.EqualFold(owner, rc.repo.Owner.Login) {
			if headRepoFilter = f.forkOf(rc.repo, owner); headRepoFilter == nil {
				writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), []*github.PullRequest{}))
				return
			}
		}
		headFilter = branch
	}
	base := q.Get("base")
	rc.repo.mu.Lock()
	var issues []*Issue
	for _, pr := range rc.repo.Pulls {
		is := pr.Issue
		if state != "all" && is.State != state || headFilter != "" && (pr.Head != headFilter || pr.HeadRepo != headRepoFilter) ||
			base != "" && pr.Base != base {
			continue
		}
		issues = append(issues, is)
	}
	views := viewIssuesLocked(rc.repo, issues)
	rc.repo.mu.Unlock()
	sortIssueViews(views, q.Get("sort"), q.Get("direction"), true)
	pageViews := paginate(w, r, f.BaseURL(), views)
	out := make([]*github.PullRequest, 0, len(pageViews))
	for _, v := range pageViews {
		out = append(out, f.pullObject(rc.repo, v, false))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// sortIssueViews orders issues or pull requests as GitHub's lists do.
func sortIssueViews(vs []issueView, by, direction string, pulls bool) {
	if by == "" {
		by = "created"
	}
	desc := direction == "desc" || direction == "" && (by == "created" || !pulls)
	less := func(a, b issueView) bool {
		switch by {
		case "updated":
			if !a.Issue.UpdatedAt.Equal(b.Issue.UpdatedAt) {
				return a.Issue.UpdatedAt.Before(b.Issue.UpdatedAt)
			}
		case "comments", "popularity":
			if a.Comments != b.Comments {
				return a.Comments < b.Comments
			}
		case "long-running":
			// Oldest first reads as "longest running": invert created.
			if !a.Issue.CreatedAt.Equal(b.Issue.CreatedAt) {
				return a.Issue.CreatedAt.After(b.Issue.CreatedAt)
			}
			return a.Issue.Number > b.Issue.Number
		default:
			if !a.Issue.CreatedAt.Equal(b.Issue.CreatedAt) {
				return a.Issue.CreatedAt.Before(b.Issue.CreatedAt)
			}
		}
		return a.Issue.Number < b.Issue.Number
	}
	sort.SliceStable(vs, func(i, j int) bool {
		if desc {
			return less(vs[j], vs[i])
		}
		return less(vs[i], vs[j])
	})
}

// getPull answers a pull request: JSON, or its diff or patch when the
// Accept header asks for application/vnd.github.*.diff / .patch.
func (f *Forge) getPull(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	v := viewPull(rc.repo, rc.number)
	accept := r.Header.Get("Accept")
	switch {
	case strings.Contains(accept, ".diff"):
		f.writePullText(w, rc.repo, v, "diff")
		return
	case strings.Contains(accept, ".patch"):
		f.writePullText(w, rc.repo, v, "patch")
		return
	}
	writeJSON(w, r, http.StatusOK, f.pullObject(rc.repo, v, true))
}

func (f *Forge) writePullText(w http.ResponseWriter, repo *Repo, v issueView, kind string) {
	base, head := v.Pull.BaseSHA, v.Pull.HeadSHA
	var out []byte
	var err error
	if kind == "diff" {
		var mb string
		mb, err = f.git.mergeBase(repo.Path, base, head)
		if err == nil {
			out, err = f.git.run(repo.Path, nil, "diff", "--no-ext-diff", "--no-color", "-M", mb, head)
		}
	} else {
		out, err = f.git.run(repo.Path, nil, "format-patch", "--stdout", base+".."+head)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// updatePullRequest is the body of PATCH /pulls/{number}.
type updatePullRequest struct {
	Title               *string `json:"title"`
	Body                *string `json:"body"`
	State               *string `json:"state"`
	Base                *string `json:"base"`
	MaintainerCanModify *bool   `json:"maintainer_can_modify"`
}

// updatePull edits a pull request: title, body and base (its author or
// writers), state (its author or triagers).
func (f *Forge) updatePull(w http.ResponseWriter, r *http.Request, rc *reqCtx, req updatePullRequest) {
	perm := rc.perm
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		validationFailed(w, "PullRequest", "state", "invalid", "")
		return
	}
	now := f.now()
	rc.repo.mu.Lock()
	pr := rc.repo.Pulls[rc.number]
	is := pr.Issue
	author := is.User.ID == rc.actor().ID
	editsContent := req.Title != nil || req.Body != nil || req.Base != nil
	if editsContent && !author && perm < PermWrite || req.State != nil && !author && perm < PermTriage {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have push access to edit this pull request.")
		return
	}
	changes := &github.EditChange{}
	changed := false
	if req.Base != nil && *req.Base != pr.Base {
		if is.State != "open" {
			rc.repo.mu.Unlock()
			validationFailed(w, "PullRequest", "base", "invalid", "Cannot change the base branch of a closed pull request.")
			return
		}
		sha, err := f.git.resolve(rc.repo.Path, "refs/heads/"+*req.Base)
		if err != nil || *req.Base == pr.Head {
			rc.repo.mu.Unlock()
			validationFailed(w, "PullRequest", "base", "invalid", "Proposed base branch '"+*req.Base+"' was not found")
			return
		}
		if openPullLocked(rc.repo, pr.HeadRepo, pr.Head, *req.Base) != nil {
			rc.repo.mu.Unlock()
			validationFailed(w, "PullRequest", "", "custom",
				fmt.Sprintf("A pull request already exists for base branch '%s' and head branch '%s'", *req.Base, pr.Head))
			return
		}
		changes.Base = &github.EditBase{Ref: &github.EditRef{From: github.String(pr.Base)}, SHA: &github.EditSHA{From: github.String(pr.BaseSHA)}}
		pr.Base, pr.BaseSHA = *req.Base, sha
		changed = true
	}
	var stateAction string
	if req.State != nil && *req.State != is.State {
		if fail := f.setPullStateLocked(rc.repo, pr, *req.State, now); fail != "" {
			rc.repo.mu.Unlock()
			validationFailed(w, "PullRequest", "state", "custom", fail)
			return
		}
		stateAction = map[string]string{"open": "reopened", "closed": "closed"}[*req.State]
	}
	if req.Title != nil && *req.Title != is.Title {
		changes.Title = &github.EditTitle{From: github.String(is.Title)}
		is.Title = *req.Title
		changed = true
	}
	if req.Body != nil && *req.Body != is.Body {
		changes.Body = &github.EditBody{From: github.String(is.Body)}
		is.Body = *req.Body
		changed = true
	}
	if req.MaintainerCanModify != nil {
		pr.MaintainerCanModify = *req.MaintainerCanModify
	}
	if changed || stateAction != "" {
		is.UpdatedAt = now
	}
	v := viewIssueLocked(rc.repo, is)
	rc.repo.mu.Unlock()

	if changed {
		f.emitPull(rc.repo, pullEvent{view: v, action: "edited", sender: rc.actor(), changes: changes})
	}
	if stateAction != "" {
		f.emitPull(rc.repo, pullEvent{view: v, action: stateAction, sender: rc.actor()})
	}
	writeJSON(w, r, http.StatusOK, f.pullObject(rc.repo, v, true))
}

// listPullFiles lists the files a pull request changes (with patches).
func (f *Forge) listPullFiles(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	v := viewPull(rc.repo, rc.number)
	mb, err := f.git.mergeBase(rc.repo.Path, v.Pull.BaseSHA, v.Pull.HeadSHA)
	if err != nil || mb == "" {
		writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), []*github.CommitFile{}))
		return
	}
	files, err := f.git.diffFiles(rc.repo.Path, mb, v.Pull.HeadSHA, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if len(files) > 3000 {
		files = files[:3000]
	}
	out := make([]*github.CommitFile, 0, len(files))
	for _, d := range files {
		out = append(out, f.fileObject(rc.repo, v.Pull.HeadSHA, d))
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), out))
}

// listPullCommits lists a pull request's commits, oldest first (at most
// 250, as GitHub).
func (f *Forge) listPullCommits(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	v := viewPull(rc.repo, rc.number)
	cs, err := f.git.logCommits(rc.repo.Path, 250, v.Pull.HeadSHA, "^"+v.Pull.BaseSHA)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]*github.RepositoryCommit, 0, len(cs))
	for _, c := range cs {
		out = append(out, f.commitObject(rc.repo, c))
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), out))
}

// getPullMerged is 204 for a merged pull request, 404 otherwise.
func (f *Forge) getPullMerged(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	merged := rc.repo.Pulls[rc.number].Merged
	rc.repo.mu.Unlock()
	if !merged {
		notFound(w)
		return
	}
	noContent(w)
}

// listPullsWithCommit lists the pull requests a commit belongs to: those
// whose commits include it, or whose merge commit it is.
func (f *Forge) listPullsWithCommit(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, err := f.git.resolve(rc.repo.Path, mux.Vars(r)["sha"]+"^{commit}")
	if err != nil {
		validationFailed(w, "Commit", "sha", "invalid", "No commit found for SHA: "+mux.Vars(r)["sha"])
		return
	}
	rc.repo.mu.Lock()
	var all []*Issue
	for _, pr := range rc.repo.Pulls {
		all = append(all, pr.Issue)
	}
	views := viewIssuesLocked(rc.repo, all)
	rc.repo.mu.Unlock()
	var hits []issueView
	for _, v := range views {
		pr := v.Pull
		if pr.MergeCommitSHA == sha || pr.HeadSHA == sha ||
			f.git.isAncestor(rc.repo.Path, sha, pr.HeadSHA) && !f.git.isAncestor(rc.repo.Path, sha, pr.BaseSHA) {
			hits = append(hits, v)
		}
	}
	sortIssueViews(hits, "created", "asc", true)
	page := paginate(w, r, f.BaseURL(), hits)
	out := make([]*github.PullRequest, 0, len(page))
	for _, v := range page {
		out = append(out, f.pullObject(rc.repo, v, false))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// setPullStateLocked closes or reopens a pull request; reopening needs
// both branches and no other open pull request between them, and takes
// their current heads. It returns why it refused, or "". The caller holds
// repo.mu.
func (f *Forge) setPullStateLocked(repo *Repo, pr *Pull, state string, now time.Time) string {
	is := pr.Issue
	if state == "closed" {
		t := now
		is.State, is.ClosedAt = "closed", &t
		return ""
	}
	headPath := repo.Path
	if pr.HeadRepo != nil {
		headPath = pr.HeadRepo.Path
	}
	headSHA, herr := f.git.resolve(headPath, "refs/heads/"+pr.Head)
	if herr == nil {
		herr = f.publishPullHeadLocked(repo, is.Number, pr.HeadRepo, pr.Head, headSHA)
	}
	baseSHA, berr := f.git.resolve(repo.Path, "refs/heads/"+pr.Base)
	switch {
	case pr.Merged:
		return "state cannot be changed. The pull request has been merged."
	case herr != nil:
		return "state cannot be changed. The " + pr.Head + " branch has been deleted."
	case berr != nil:
		return "state cannot be changed. The " + pr.Base + " branch has been deleted."
	case openPullLocked(repo, pr.HeadRepo, pr.Head, pr.Base) != nil:
		return fmt.Sprintf("state cannot be changed. There is already an open pull request from %s to %s.", pr.Head, pr.Base)
	}
	pr.HeadSHA, pr.BaseSHA = headSHA, baseSHA
	is.State, is.ClosedAt = "open", nil
	return ""
}
