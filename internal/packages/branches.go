package packages

import (
	"errors"
	"fmt"
	"strings"
)

const (
	headsPrefix  = "refs/heads/"
	draftsPrefix = "drafts/"
	updatePrefix = "porch/update/"
)

// BotBranchPrefixes are the prefixes of every branch porchbot opens pull
// requests from: drafts and update branches.
func BotBranchPrefixes() []string { return []string{draftsPrefix, updatePrefix} }

// ErrNotDraft is returned by CheckDraftBranchName for a branch outside
// drafts/.
var ErrNotDraft = errors.New("not a draft branch")

// DraftBranch is the branch of the draft of pkg in workspace ws:
// "drafts/<pkg>/<ws>" (Porch's name for a draft).
func DraftBranch(pkg, ws string) string { return draftsPrefix + pkg + "/" + ws }

// DraftRef is the full ref of DraftBranch: "refs/heads/drafts/<pkg>/<ws>".
func DraftRef(pkg, ws string) string { return headsPrefix + DraftBranch(pkg, ws) }

// ParseDraftBranch reads a full branch ref "refs/heads/drafts/<pkg>/<ws>":
// the workspace is the last segment, the package everything between. It is
// ok only when both are valid (ValidateName, ValidateWorkspace).
func ParseDraftBranch(ref string) (pkg, workspace string, ok bool) {
	branch, found := strings.CutPrefix(ref, headsPrefix)
	if !found {
		return "", "", false
	}
	return ParseDraftBranchName(branch)
}

// ParseDraftBranchName is ParseDraftBranch for a branch name without
// "refs/heads/" (as a pull request's head ref is given).
func ParseDraftBranchName(branch string) (pkg, workspace string, ok bool) {
	pkg, workspace, err := CheckDraftBranchName(branch)
	return pkg, workspace, err == nil
}

// CheckDraftBranchName is ParseDraftBranchName with the reason a branch
// under drafts/ is not a usable draft, for telling its author. Branches
// outside drafts/ give ErrNotDraft.
func CheckDraftBranchName(branch string) (pkg, workspace string, err error) {
	rest, found := strings.CutPrefix(branch, draftsPrefix)
	if !found {
		return "", "", ErrNotDraft
	}
	i := strings.LastIndexByte(rest, '/')
	if i < 0 {
		return "", "", fmt.Errorf("branch %q: a draft branch is drafts/<package>/<workspace>", branch)
	}
	pkg, workspace = rest[:i], rest[i+1:]
	if err := ValidateName(pkg); err != nil {
		return "", "", fmt.Errorf("branch %q: %w", branch, err)
	}
	if err := ValidateWorkspace(workspace); err != nil {
		return "", "", fmt.Errorf("branch %q: %w", branch, err)
	}
	return pkg, workspace, nil
}

// UpdateBranch is the stable branch of the update pull request of a
// downstream package: "porch/update/<pkg>".
func UpdateBranch(pkg string) string { return updatePrefix + pkg }

// ParseUpdateBranchName reads "porch/update/<pkg>" (no refs/heads/).
func ParseUpdateBranchName(branch string) (pkg string, ok bool) {
	pkg, found := strings.CutPrefix(branch, updatePrefix)
	if !found || ValidateName(pkg) != nil {
		return "", false
	}
	return pkg, true
}
