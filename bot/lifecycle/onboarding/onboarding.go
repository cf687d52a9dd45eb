// Package onboarding opens the "Configure porchbot" pull request in a
// repository that has no .github/porchbot.yaml, as Renovate onboards a
// repository: one pull request on the branch porchbot/configure, adding
// the configuration in force without the file (commented) and saying
// what porchbot found there. Merging it turns porchbot on; closing it
// leaves the repository alone (porchbot never opens a second one); while
// onboarding is required (the server's --onboarding), porchbot acts on
// nothing else in the repository (core.ErrNotOnboarded).
package onboarding

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
)

// Title is the onboarding pull request's title.
const Title = "Configure porchbot"

// API is what onboarding calls: whether a pull request was ever opened
// from the onboarding branch (only when the branch is gone), and opening
// one.
type API interface {
	ListPulls(ctx context.Context, owner, repo string, q hub.PullQuery) ([]hub.Pull, hub.Next, error)
	CreatePull(ctx context.Context, owner, repo string, p hub.NewPull) (hub.Pull, error)
}

// Outcome is what Onboard did.
type Outcome string

const (
	// Configured: the repository has its file; nothing to do.
	Configured Outcome = "configured"
	// Empty: the repository has no commit to propose the file on yet.
	Empty Outcome = "empty"
	// Pending: the onboarding branch exists (its pull request is open, or
	// was closed with the branch kept): nothing more to do.
	Pending Outcome = "pending"
	// Declined: a pull request from the onboarding branch was closed
	// unmerged: the repository is left alone.
	Declined Outcome = "declined"
	// Opened: the branch was pushed and the pull request opened now.
	Opened Outcome = "opened"
	// Skipped: the organisation's .github repository, never onboarded.
	Skipped Outcome = "skipped"
)

// Result is an Onboard's outcome and the pull request it opened.
type Result struct {
	Outcome Outcome
	Pull    hub.Pull
}

// Onboard opens the onboarding pull request in the session's repository
// when it has none and no configuration file. A repository whose
// onboarding branch exists costs no API call; one whose branch is gone
// one (the pull requests ever opened from it); opening costs a push and
// one call.
func Onboard(ctx context.Context, s *core.Session, api API, limits config.ServerLimits) (Result, error) {
	if s.ConfigFound {
		return Result{Outcome: Configured}, nil
	}
	if s.Repo.Name == config.OrgRepository {
		// The organisation's .github repository holds its presets
		// (porchbot.yaml at the root), not packages: never onboarded.
		return Result{Outcome: Skipped}, nil
	}
	if s.DeploymentHead.IsZero() {
		return Result{Outcome: Empty}, nil
	}
	if head, err := s.ResolveRef(ctx, "refs/heads/"+core.OnboardingBranch); err == nil && !head.IsZero() {
		return Result{Outcome: Pending}, nil
	} else if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) && !errors.Is(err, gitstore.ErrNotFound) {
		return Result{}, fmt.Errorf("onboarding branch: %w", err)
	}
	owner, name := s.Repo.Owner, s.Repo.Name
	pulls, _, err := api.ListPulls(ctx, owner, name, hub.PullQuery{State: "all", Head: owner + ":" + core.OnboardingBranch})
	if err != nil {
		return Result{}, fmt.Errorf("pull requests from %s: %w", core.OnboardingBranch, err)
	}
	for _, p := range pulls {
		if p.State == "closed" && !p.Merged {
			return Result{Outcome: Declined, Pull: p}, nil
		}
		if p.State == "open" {
			return Result{Outcome: Pending, Pull: p}, nil
		}
	}
	f, err := Find(ctx, s)
	if err != nil {
		return Result{}, err
	}
	text := ConfigText(s.Repo.FullName(), limits, f)
	files, err := githubDir(ctx, s)
	if err != nil {
		return Result{}, err
	}
	files["porchbot.yaml"] = []byte(text)
	_, err = s.CommitPackage(ctx, core.Identity{}, core.PackageCommit{Branch: core.OnboardingBranch, Parent: s.DeploymentHead,
		Dir: ".github", Files: files, Message: "Configure porchbot\n\nAdd .github/porchbot.yaml with the configuration in force without it.",
		Exclusive: true})
	if err != nil {
		if errors.Is(err, gitstore.ErrLeaseBroken) {
			return Result{Outcome: Pending}, nil // another replica, or a person, made the branch meanwhile
		}
		return Result{}, fmt.Errorf("push %s: %w", core.OnboardingBranch, err)
	}
	pr, err := api.CreatePull(ctx, owner, name, hub.NewPull{Title: Title, Head: core.OnboardingBranch, Base: s.DeploymentBranch,
		Body: Body(s.Repo.FullName(), f)})
	if err != nil {
		return Result{}, fmt.Errorf("open the onboarding pull request: %w", err)
	}
	s.Log.WithField("pull", pr.Number).Info("onboarding pull request opened")
	return Result{Outcome: Opened, Pull: pr}, nil
}

// githubDir is the default branch's .github directory as it is (the file
// is added beside workflows and the rest, which stay).
func githubDir(ctx context.Context, s *core.Session) (map[string][]byte, error) {
	files, err := s.Git.ReadTree(ctx, s.DeploymentHead, ".github")
	if errors.Is(err, gitstore.ErrNotFound) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read .github: %w", err)
	}
	return files, nil
}
