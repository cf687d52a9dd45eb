package forge

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Check suites: one per App per head commit, as on GitHub. A push asks
// the App for one (check_suite "requested"); creating a check run on a
// commit without one creates it on demand.

// suiteBySHALocked is the App's suite for a commit. Caller holds repo.mu.
func suiteBySHALocked(repo *Repo, sha string) *CheckSuite {
	var found *CheckSuite
	for _, s := range repo.Suites {
		if s.HeadSHA == sha && (found == nil || s.ID < found.ID) {
			found = s
		}
	}
	return found
}

// ensureSuiteLocked returns the App's suite for sha, creating it (queued)
// when absent; created reports which. branch may be empty: the suite's
// head branch is then a branch whose tip is sha, if any. Caller holds
// repo.mu.
func (f *Forge) ensureSuiteLocked(repo *Repo, sha, branch, before string) (s *CheckSuite, created bool) {
	if s := suiteBySHALocked(repo, sha); s != nil {
		return s, false
	}
	if branch == "" {
		branch = f.branchAtLocked(repo, sha)
	}
	if before == "" {
		// Not requested by a push: take the commit's first parent as
		// "before", what a push of that one commit would have said.
		before = zeroSHA
		if parent, err := f.git.resolve(repo.Path, sha+"^"); err == nil {
			before = parent
		}
	}
	now := f.now()
	s = &CheckSuite{ID: f.newID(), HeadBranch: branch, HeadSHA: sha, Status: "queued",
		CreatedAt: now, UpdatedAt: now, Before: before, After: sha}
	repo.Suites[s.ID] = s
	return s, true
}

// branchAtLocked names a branch whose tip is sha, preferring the default
// branch; "" when none is.
func (f *Forge) branchAtLocked(repo *Repo, sha string) string {
	refs, err := f.git.refs(repo.Path)
	if err != nil {
		return ""
	}
	if refs["refs/heads/"+repo.DefaultBranch] == sha {
		return repo.DefaultBranch
	}
	var names []string
	for ref, at := range refs {
		if at == sha && strings.HasPrefix(ref, "refs/heads/") {
			names = append(names, strings.TrimPrefix(ref, "refs/heads/"))
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// latestRunsLocked keeps the newest run of each name, newest first.
func latestRunsLocked(runs []*CheckRun) []*CheckRun {
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	seen := map[string]bool{}
	var out []*CheckRun
	for _, r := range runs {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	return out
}

// conclusionRank orders conclusions from the one that decides a suite
// first: any failure-like conclusion wins, success beats neutral, and a
// suite is "skipped" only when every run was.
var conclusionRank = []string{"action_required", "startup_failure", "timed_out", "cancelled", "failure",
	"stale", "success", "neutral", "skipped"}

// recomputeSuiteLocked derives a suite's status and conclusion from its
// latest runs and reports whether it has just completed. Caller holds
// repo.mu.
func (f *Forge) recomputeSuiteLocked(repo *Repo, s *CheckSuite) (completedNow bool) {
	var runs []*CheckRun
	for _, r := range repo.CheckRuns {
		if r.SuiteID == s.ID {
			runs = append(runs, r)
		}
	}
	runs = latestRunsLocked(runs)
	if len(runs) == 0 {
		return false
	}
	was := s.Status
	status, best := "completed", len(conclusionRank)
	for _, r := range runs {
		switch r.Status {
		case "completed":
			for i, c := range conclusionRank {
				if c == r.Conclusion && i < best {
					best = i
				}
			}
		case "in_progress":
			status = "in_progress"
		default:
			if status == "completed" {
				status = "queued"
			}
		}
	}
	s.Status = status
	s.Conclusion = ""
	if status == "completed" && best < len(conclusionRank) {
		s.Conclusion = conclusionRank[best]
	}
	s.UpdatedAt = f.now()
	return status == "completed" && was != "completed"
}

var sha40Pattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// peelRefToCommit resolves a ref as the REST API reads {ref}: a commit
// sha, a branch name, a tag name (peeled to its commit), or a fully
// qualified refs/... name. ok is false when it names no commit.
func (f *Forge) peelRefToCommit(repo *Repo, ref string) (string, bool) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.Contains(ref, "..") {
		return "", false
	}
	if sha40Pattern.MatchString(ref) {
		if t, err := f.git.objectType(repo.Path, ref); err == nil && t == "commit" {
			return ref, true
		}
		return "", false
	}
	cands := []string{"refs/heads/" + ref, "refs/tags/" + ref}
	if strings.HasPrefix(ref, "refs/") || looksLikeShortSHA(ref) {
		cands = append(cands, ref)
	}
	for _, c := range cands {
		if sha, err := f.git.resolve(repo.Path, c+"^{commit}"); err == nil {
			return sha, true
		}
	}
	return "", false
}

func looksLikeShortSHA(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckRunsFor returns copies of the check runs on the commit a ref names
// (newest first), for tests that look at what the bot reported.
func (f *Forge) CheckRunsFor(fullName, ref string) ([]CheckRun, error) {
	repo, err := f.repoNamed(fullName)
	if err != nil {
		return nil, err
	}
	sha, ok := f.peelRefToCommit(repo, ref)
	if !ok {
		return nil, fmt.Errorf("forge: %s: no commit %q", fullName, ref)
	}
	repo.mu.Lock()
	defer repo.mu.Unlock()
	var runs []*CheckRun
	for _, r := range repo.CheckRuns {
		if r.HeadSHA == sha {
			runs = append(runs, r)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	out := make([]CheckRun, 0, len(runs))
	for _, r := range runs {
		c := *r
		c.Annotations = append([]CheckAnnotation(nil), r.Annotations...)
		out = append(out, c)
	}
	return out, nil
}
