package forge

import (
	"fmt"
	"sort"
)

// Branch protection as the forge models it: required status checks, by
// name and optionally bound to an App (GitHub's required_status_checks
// with contexts and checks), and whether they bind administrators too
// (enforce_admins). They are enforced where GitHub enforces them for a
// pull request: its merge (the API and the web page) is refused until
// every required check passed on its head. Pushes to a protected branch
// are not checked (GitHub refuses those too; porchbot never pushes to a
// deployment branch), and the rest of GitHub's protection (reviews,
// restrictions, linear history) is not modelled: the API refuses it
// rather than accept and ignore it.

// BranchProtection is one branch's protection.
type BranchProtection struct {
	// Strict: the head must be up to date with the base (GitHub's
	// required_status_checks.strict). Stored and reported; the forge's
	// merge does not enforce it.
	Strict bool
	// Checks are the required checks, sorted by context.
	Checks []RequiredCheck
	// EnforceAdmins binds administrators too; otherwise they may merge
	// past unmet checks, as on GitHub.
	EnforceAdmins bool
}

// RequiredCheck is a check that must pass: a check run or commit status
// of that name; with AppID, only a check run the App of that id made.
type RequiredCheck struct {
	Context string
	AppID   int64 // 0: any
}

// Protect sets branch's protection in repository fullName (a test's
// seed; the API's PUT does the same). Nil removes it.
func (f *Forge) Protect(fullName, branch string, p *BranchProtection) error {
	repo, err := f.repoNamed(fullName)
	if err != nil {
		return err
	}
	repo.mu.Lock()
	defer repo.mu.Unlock()
	setProtectionLocked(repo, branch, p)
	return nil
}

// setProtectionLocked stores p (a copy) for branch. Caller holds repo.mu.
func setProtectionLocked(repo *Repo, branch string, p *BranchProtection) {
	if p == nil {
		delete(repo.Protections, branch)
		return
	}
	c := copyProtection(p)
	sort.Slice(c.Checks, func(i, j int) bool { return c.Checks[i].Context < c.Checks[j].Context })
	if repo.Protections == nil {
		repo.Protections = map[string]*BranchProtection{}
	}
	repo.Protections[branch] = c
}

// passingConclusions are the conclusions that satisfy a required check.
var passingConclusions = map[string]bool{"success": true, "neutral": true, "skipped": true}

// unmetChecksLocked says why head may not merge into branch under its
// protection ("" when it may): the required checks that did not pass on
// head, in GitHub's words. appID is the forge's App (the maker of every
// check run); admin is the merger's standing. Caller holds repo.mu.
func unmetChecksLocked(repo *Repo, branch, head string, appID int64, admin bool) string {
	p := repo.Protections[branch]
	if p == nil || len(p.Checks) == 0 || admin && !p.EnforceAdmins {
		return ""
	}
	var expected, failing []string
	for _, rc := range p.Checks {
		switch checkStateLocked(repo, rc, head, appID) {
		case "":
			expected = append(expected, rc.Context)
		case "failing":
			failing = append(failing, rc.Context)
		}
	}
	n := len(expected) + len(failing)
	switch {
	case n == 0:
		return ""
	case n == 1 && len(failing) == 1:
		return fmt.Sprintf("Required status check %q is failing.", failing[0])
	case n == 1:
		return fmt.Sprintf("Required status check %q is expected.", expected[0])
	case len(failing) == 0:
		return fmt.Sprintf("%d of %d required status checks are expected.", n, len(p.Checks))
	case len(expected) == 0:
		return fmt.Sprintf("%d of %d required status checks are failing.", n, len(p.Checks))
	}
	return fmt.Sprintf("%d of %d required status checks have not succeeded.", n, len(p.Checks))
}

// checkStateLocked is rc's state on head: "passing", "failing", or ""
// (nothing completed yet). The newest check run of that name counts (the
// App's, when rc names one); a commit status of that context counts
// when no App is named. Caller holds repo.mu.
func checkStateLocked(repo *Repo, rc RequiredCheck, head string, appID int64) string {
	var newest *CheckRun
	for _, r := range repo.CheckRuns {
		if r.HeadSHA != head || r.Name != rc.Context || rc.AppID != 0 && rc.AppID != appID {
			continue
		}
		if newest == nil || r.ID > newest.ID {
			newest = r
		}
	}
	if newest != nil {
		switch {
		case newest.Status != "completed":
			return ""
		case passingConclusions[newest.Conclusion]:
			return "passing"
		}
		return "failing"
	}
	if rc.AppID != 0 {
		return ""
	}
	state := ""
	for _, s := range repo.Statuses { // oldest first: the last one counts
		if s.SHA == head && s.Context == rc.Context {
			state = s.State
		}
	}
	switch state {
	case "success":
		return "passing"
	case "failure", "error":
		return "failing"
	}
	return ""
}

// copyProtection is a copy of p (nil for nil). Caller holds repo.mu.
func copyProtection(p *BranchProtection) *BranchProtection {
	if p == nil {
		return nil
	}
	c := *p
	c.Checks = append([]RequiredCheck(nil), p.Checks...)
	return &c
}
