package core

import (
	"errors"
	"fmt"
)

// OnboardingBranch is the branch of the "Configure porchbot" pull request
// (bot/lifecycle/onboarding).
const OnboardingBranch = "porchbot/configure"

// ErrNotOnboarded is why Opener.Open refuses a repository while
// onboarding is required (Opener.RequireConfig) and its default branch
// has no .github/porchbot.yaml: porchbot acts there on nothing but its
// onboarding pull request until that is merged. Handlers skip such a
// repository (errors.Is); a command's reply says what to do.
var ErrNotOnboarded = errors.New("porchbot is not set up in this repository")

// NotOnboarded is Open's refusal of repo, as a command's reply says it.
func NotOnboarded(repo Repo) error {
	return &RequestError{Err: ErrNotOnboarded, Msg: fmt.Sprintf("porchbot is not set up in %s yet: merge its "+
		"\"Configure porchbot\" pull request (branch %s), or add .github/porchbot.yaml to %s yourself, to turn it on",
		repo.FullName(), OnboardingBranch, orDefaultBranch(repo.DefaultBranch))}
}

func orDefaultBranch(b string) string {
	if b == "" {
		return "the default branch"
	}
	return b
}
