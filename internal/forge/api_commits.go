package forge

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesCommits serves the repository commits API: list (sha, path,
// author, since, until), get one with its files and stats, and compare
// two commits. Registered after the check and status routes, whose
// commits/{ref}/... paths this {ref} would otherwise swallow.
func (f *Forge) routesCommits(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/commits", f.repoHandler(PermRead, f.listCommits)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/commits/{ref:.+}", f.repoHandler(PermRead, f.getCommit)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/compare/{basehead:.+}", f.repoHandler(PermRead, f.compareCommits)).Methods(http.MethodGet)
}

// GitHub's caps: files of one commit, commits of one comparison.
const (
	maxCommitFiles    = 3000
	maxCompareCommits = 250
)

func (f *Forge) listCommits(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	q := r.URL.Query()
	ref := q.Get("sha")
	if ref == "" {
		ref = rc.repo.DefaultBranch
		if _, found, _ := f.git.gdRefValue(rc.repo.Path, "refs/heads/"+ref); !found {
			writeError(w, http.StatusConflict, "Git Repository is empty.")
			return
		}
	}
	sha, found := f.peelRefToCommit(rc.repo, ref)
	if !found {
		writeError(w, http.StatusNotFound, "No commit found for SHA: "+ref)
		return
	}
	var paths []string
	if p := strings.Trim(q.Get("path"), "/"); p != "" {
		paths = []string{p}
	}
	since, okSince := queryTime(q.Get("since"))
	until, okUntil := queryTime(q.Get("until"))
	if !okSince || !okUntil {
		writeError(w, http.StatusBadRequest, "Invalid time: since and until are ISO 8601 timestamps (YYYY-MM-DDTHH:MM:SSZ).")
		return
	}
	cs, err := f.git.logCommitsTouching(rc.repo.Path, 0, []string{sha}, paths)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	slices.Reverse(cs) // newest first, as GitHub lists them
	author := f.authorEmails(q.Get("author"))
	committer := f.authorEmails(q.Get("committer"))
	var kept []gitCommit
	for _, c := range cs {
		if (author != nil && !author[strings.ToLower(c.author.Email)]) ||
			(committer != nil && !committer[strings.ToLower(c.committer.Email)]) ||
			(!since.IsZero() && c.committer.When.Before(since)) || (!until.IsZero() && c.committer.When.After(until)) {
			continue
		}
		kept = append(kept, c)
	}
	out := []*github.RepositoryCommit{}
	for _, c := range paginate(w, r, f.BaseURL(), kept) {
		out = append(out, f.commitObject(rc.repo, c))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// queryTime reads an optional ISO 8601 timestamp; false when malformed.
func queryTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// authorEmails reads the author/committer filter (a login or an email)
// as the lower-cased emails it matches; nil when there is no filter.
func (f *Forge) authorEmails(who string) map[string]bool {
	if who == "" {
		return nil
	}
	set := map[string]bool{strings.ToLower(who): true}
	if a, ok := f.Account(who); ok && a.Email != "" {
		set[strings.ToLower(a.Email)] = true
	}
	return set
}

// commitWithFiles is one commit with the files it changes from its first
// parent (all of them for a root commit) and their stats.
func (f *Forge) commitWithFiles(w http.ResponseWriter, r *http.Request, repo *Repo, sha string) (*github.RepositoryCommit, bool) {
	cs, err := f.git.logCommits(repo.Path, 0, "-1", sha)
	if err != nil || len(cs) != 1 {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha)
		return nil, false
	}
	c := cs[0]
	from := emptyTreeSHA
	if len(c.parents) > 0 {
		from = c.parents[0]
	}
	files, err := f.git.diffFiles(repo.Path, from, sha, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return nil, false
	}
	obj := f.commitObject(repo, c)
	add, del := 0, 0
	for _, d := range files {
		add += d.additions
		del += d.deletions
	}
	obj.Stats = &github.CommitStats{Additions: github.Int(add), Deletions: github.Int(del), Total: github.Int(add + del)}
	if len(files) > maxCommitFiles {
		files = files[:maxCommitFiles]
	}
	obj.Files = []*github.CommitFile{}
	for _, d := range paginate(w, r, f.BaseURL(), files) {
		obj.Files = append(obj.Files, f.fileObject(repo, sha, d))
	}
	return obj, true
}

// refCommitFor resolves the request's {ref} to its commit; false when it
// answered (GitHub's 422 for a ref naming no commit).
func (f *Forge) refCommitFor(rc *reqCtx) (string, bool) {
	ref := mux.Vars(rc.r)["ref"]
	sha, ok := f.peelRefToCommit(rc.repo, ref)
	if !ok {
		writeError(rc.w, http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return "", false
	}
	return sha, true
}

func (f *Forge) getCommit(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, ok := f.refCommitFor(rc)
	if !ok {
		return
	}
	obj, ok := f.commitWithFiles(w, r, rc.repo, sha)
	if !ok {
		return
	}
	writeJSON(w, r, http.StatusOK, obj)
}

// compareStatus is GitHub's status of head against base.
func compareStatus(ahead, behind int) string {
	switch {
	case ahead == 0 && behind == 0:
		return "identical"
	case behind == 0:
		return "ahead"
	case ahead == 0:
		return "behind"
	}
	return "diverged"
}

// compareCommits compares {base}...{head} (".." is read alike) within
// the repository: ahead_by, behind_by, status, the commits head has over
// the merge base (oldest first, at most 250, paginated when asked) and
// the files changed from the merge base to head.
func (f *Forge) compareCommits(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	basehead := mux.Vars(r)["basehead"]
	baseRef, headRef, cut := strings.Cut(basehead, "...")
	if !cut {
		baseRef, headRef, cut = strings.Cut(basehead, "..")
	}
	base, okB := f.peelRefToCommit(rc.repo, baseRef)
	head, okH := f.peelRefToCommit(rc.repo, headRef)
	if !cut || !okB || !okH {
		notFound(w)
		return
	}
	mb, err := f.git.mergeBase(rc.repo.Path, base, head)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if mb == "" {
		writeError(w, http.StatusNotFound, "No common ancestor between "+baseRef+" and "+headRef+".")
		return
	}
	ahead, err := f.git.logCommits(rc.repo.Path, 0, head, "^"+base)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	behind, err := f.git.logCommits(rc.repo.Path, 0, base, "^"+head)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	files, err := f.git.diffFiles(rc.repo.Path, mb, head, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	commits := ahead
	q := r.URL.Query()
	if q.Has("page") || q.Has("per_page") {
		commits = paginate(w, r, f.BaseURL(), ahead)
	} else if len(commits) > maxCompareCommits {
		commits = commits[:maxCompareCommits]
	}
	if len(files) > maxFilesPerCompare {
		files = files[:maxFilesPerCompare]
	}
	commitObjs := []*github.RepositoryCommit{}
	for _, c := range commits {
		commitObjs = append(commitObjs, f.commitObject(rc.repo, c))
	}
	fileObjs := []*github.CommitFile{}
	for _, d := range files {
		fileObjs = append(fileObjs, f.fileObject(rc.repo, head, d))
	}
	baseObj, okB := f.oneCommit(rc.repo, base)
	mbObj, okM := f.oneCommit(rc.repo, mb)
	if !okB || !okM {
		writeError(w, http.StatusInternalServerError, "reading commits failed")
		return
	}
	api, web := f.repoURLs(rc.repo)
	writeJSON(w, r, http.StatusOK, &github.CommitsComparison{
		BaseCommit: baseObj, MergeBaseCommit: mbObj,
		Status: github.String(compareStatus(len(ahead), len(behind))), AheadBy: github.Int(len(ahead)),
		BehindBy: github.Int(len(behind)), TotalCommits: github.Int(len(ahead)),
		Commits: commitObjs, Files: fileObjs,
		URL:          github.String(api + "/compare/" + basehead),
		HTMLURL:      github.String(web + "/compare/" + basehead),
		PermalinkURL: github.String(web + "/compare/" + rc.repo.Owner.Login + ":" + base + "..." + rc.repo.Owner.Login + ":" + head),
		DiffURL:      github.String(web + "/compare/" + basehead + ".diff"),
		PatchURL:     github.String(web + "/compare/" + basehead + ".patch"),
	})
}

// maxFilesPerCompare is GitHub's cap on a comparison's files.
const maxFilesPerCompare = 300

// oneCommit is the commits-API object of one commit.
func (f *Forge) oneCommit(repo *Repo, sha string) (*github.RepositoryCommit, bool) {
	cs, err := f.git.logCommits(repo.Path, 0, "-1", sha)
	if err != nil || len(cs) != 1 {
		return nil, false
	}
	return f.commitObject(repo, cs[0]), true
}
