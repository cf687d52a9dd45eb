// Package protect makes porchbot's checks required on a deployment branch,
// so that GitHub itself refuses to merge a proposal porchbot has not
// passed, instead of porchbot refusing to publish it after the merge
// (docs/operations.md, "Branch protection"). It adds to a branch's
// protection and never takes anything away: a branch with no protection
// gets one that requires the checks and nothing else; a branch whose
// protection requires status checks gets porchbot's added to them; a
// branch protected without required status checks is left alone, with
// a message saying how to add them.
//
// It runs with an administrator's token (`porchbot protect`), not the
// App's: porchbot does not ask for the administration permission.
package protect

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/google/go-github/v60/github"
)

// Checks are the check runs porchbot requires: the render of every
// package a proposal changes, and the approval verdict (which waits for
// the render, the readiness gates and the approvers).
var Checks = []string{"porchbot/render", "porchbot/approval"}

// API is the part of go-github's RepositoriesService protect needs.
type API interface {
	GetBranchProtection(ctx context.Context, owner, repo, branch string) (*github.Protection, *github.Response, error)
	UpdateBranchProtection(ctx context.Context, owner, repo, branch string, preq *github.ProtectionRequest) (*github.Protection, *github.Response, error)
	UpdateRequiredStatusChecks(ctx context.Context, owner, repo, branch string, sreq *github.RequiredStatusChecksRequest) (*github.RequiredStatusChecks, *github.Response, error)
}

// Options say what to require.
type Options struct {
	// AppID binds the checks to porchbot's App, so that a check run of
	// the same name by anything else (a workflow, another app) does not
	// satisfy them; 0 accepts any maker.
	AppID int64
	// EnforceAdmins binds the repository's administrators too, when the
	// branch had no protection (an existing protection keeps its own).
	EnforceAdmins bool
}

// Outcome says what was done.
type Outcome struct {
	// Created: the branch had no protection and now has one.
	Created bool
	// Added are the checks added; none when they were all required
	// already (with the same App).
	Added []string
	// Required are the branch's required checks afterwards, sorted.
	Required []string
}

// ErrProtectedWithoutChecks is a branch protected without required
// status checks: protect does not rewrite such a protection.
var ErrProtectedWithoutChecks = errors.New("protected without required status checks")

// Protect makes Checks required on owner/repo's branch.
func Protect(ctx context.Context, api API, owner, repo, branch string, opts Options) (Outcome, error) {
	cur, _, err := api.GetBranchProtection(ctx, owner, repo, branch)
	switch {
	case errors.Is(err, github.ErrBranchNotProtected):
		checks := want(nil, opts.AppID)
		_, _, err := api.UpdateBranchProtection(ctx, owner, repo, branch, &github.ProtectionRequest{
			RequiredStatusChecks: &github.RequiredStatusChecks{Strict: false, Checks: &checks},
			EnforceAdmins:        opts.EnforceAdmins})
		if err != nil {
			return Outcome{}, fmt.Errorf("protect %s/%s %s: %w", owner, repo, branch, err)
		}
		return Outcome{Created: true, Added: append([]string(nil), Checks...), Required: contexts(checks)}, nil
	case err != nil:
		return Outcome{}, fmt.Errorf("protection of %s/%s %s: %w", owner, repo, branch, err)
	case cur.GetRequiredStatusChecks() == nil:
		return Outcome{}, fmt.Errorf("%s/%s %s is %w: add %s to it (Settings → Branches → Require status checks to pass), "+
			"or remove its protection and run this again", owner, repo, branch, ErrProtectedWithoutChecks, quoteAll(Checks))
	}
	var have []*github.RequiredStatusCheck
	if c := cur.GetRequiredStatusChecks().Checks; c != nil {
		have = *c
	}
	if len(have) == 0 && cur.GetRequiredStatusChecks().Contexts != nil {
		for _, name := range *cur.GetRequiredStatusChecks().Contexts {
			have = append(have, &github.RequiredStatusCheck{Context: name})
		}
	}
	checks := want(have, opts.AppID)
	added := addedChecks(have, checks)
	if len(added) == 0 {
		return Outcome{Required: contexts(checks)}, nil
	}
	if _, _, err := api.UpdateRequiredStatusChecks(ctx, owner, repo, branch, &github.RequiredStatusChecksRequest{Checks: checks}); err != nil {
		return Outcome{}, fmt.Errorf("required checks of %s/%s %s: %w", owner, repo, branch, err)
	}
	return Outcome{Added: added, Required: contexts(checks)}, nil
}

// want is have with porchbot's checks required (bound to appID): an
// entry of the same name is replaced, the others are kept. Sorted by name.
func want(have []*github.RequiredStatusCheck, appID int64) []*github.RequiredStatusCheck {
	ours := map[string]bool{}
	for _, c := range Checks {
		ours[c] = true
	}
	var out []*github.RequiredStatusCheck
	for _, c := range have {
		if !ours[c.Context] {
			out = append(out, c)
		}
	}
	for _, c := range Checks {
		rc := &github.RequiredStatusCheck{Context: c}
		if appID != 0 {
			rc.AppID = github.Int64(appID)
		}
		out = append(out, rc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Context < out[j].Context })
	return out
}

// addedChecks are porchbot's checks that have did not require as checks
// asks (missing, or bound to another App).
func addedChecks(have, checks []*github.RequiredStatusCheck) []string {
	had := map[string]int64{}
	present := map[string]bool{}
	for _, c := range have {
		had[c.Context], present[c.Context] = c.GetAppID(), true
	}
	var out []string
	for _, c := range checks {
		for _, name := range Checks {
			if c.Context == name && (!present[name] || had[name] != c.GetAppID()) {
				out = append(out, name)
			}
		}
	}
	return out
}

func contexts(checks []*github.RequiredStatusCheck) []string {
	out := make([]string, 0, len(checks))
	for _, c := range checks {
		out = append(out, c.Context)
	}
	return out
}

func quoteAll(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += " and "
		}
		out += fmt.Sprintf("%q", n)
	}
	return out
}
