package forge

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// Merging pull requests with real git and no work tree: `git merge-tree
// --write-tree` makes the merged tree and `git commit-tree` the commits;
// the base branch moves by compare-and-swap under repo.mu.

// mergePullRequest is the body of PUT /pulls/{number}/merge.
type mergePullRequest struct {
	CommitTitle   *string `json:"commit_title"`
	CommitMessage *string `json:"commit_message"`
	MergeMethod   string  `json:"merge_method"`
	SHA           string  `json:"sha"`
}

// webFlow is the committer of the commits merges make, as GitHub's.
func webFlow(when time.Time) Signature {
	return Signature{Name: "GitHub", Email: "noreply@github.com", When: when}
}

// mergeOutcome is the result of mergePull: an HTTP refusal, or the new
// base head, the ref change and the merged pull request.
type mergeOutcome struct {
	status int
	msg    string
	sha    string
	change RefChange
	view   issueView
}

// mergePullHandler is PUT /pulls/{number}/merge: write access; 405 when
// the pull request is not mergeable (closed, draft, conflicts), 409 when
// sha is not its head or the base moved meanwhile.
func (f *Forge) mergePullHandler(w http.ResponseWriter, r *http.Request, rc *reqCtx, req mergePullRequest) {
	if req.MergeMethod == "" {
		req.MergeMethod = "merge"
	}
	if req.MergeMethod != "merge" && req.MergeMethod != "squash" && req.MergeMethod != "rebase" {
		validationFailed(w, "PullRequest", "merge_method", "invalid", "merge_method must be one of merge, squash, rebase")
		return
	}
	out := f.mergePull(rc.repo, rc.number, req, rc.actor(), mergeGate{appID: f.appID(), admin: rc.perm >= PermAdmin})
	if out.status != http.StatusOK {
		writeError(w, out.status, out.msg)
		return
	}
	change := out.change
	change.Kind = ActivityPRMerge
	f.refsChanged(rc.repo, rc.actor(), []RefChange{change})
	f.emitPull(rc.repo, pullEvent{view: out.view, action: "closed", sender: rc.actor()})
	writeJSON(w, r, http.StatusOK, &github.PullRequestMergeResult{
		SHA: github.String(out.sha), Merged: github.Bool(true), Message: github.String("Pull Request successfully merged")})
}

// mergeGate is what the base branch's protection is judged with: the
// forge's App (the maker of its check runs) and whether the merger is an
// administrator of the repository.
type mergeGate struct {
	appID int64
	admin bool
}

// appID is the forge's App's id (0: none registered).
func (f *Forge) appID() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.app == nil {
		return 0
	}
	return f.app.ID
}

// mergePull merges pull request n into its base with req's method.
func (f *Forge) mergePull(repo *Repo, n int, req mergePullRequest, merger *Account, gate mergeGate) mergeOutcome {
	repo.mu.Lock()
	defer repo.mu.Unlock()
	pr := repo.Pulls[n]
	is := pr.Issue
	switch {
	case pr.Merged || is.State != "open":
		return mergeOutcome{status: http.StatusMethodNotAllowed, msg: "Pull Request is not mergeable"}
	case pr.Draft:
		return mergeOutcome{status: http.StatusMethodNotAllowed, msg: "Pull Request is still a draft"}
	}
	headRef := "refs/heads/" + pr.Head
	if pr.HeadRepo != nil {
		headRef = pullHeadRef(n) // a fork's head, as copied into this repository
	}
	head, err := f.git.resolve(repo.Path, headRef)
	if err != nil {
		return mergeOutcome{status: http.StatusMethodNotAllowed, msg: "Head branch " + pr.Head + " does not exist"}
	}
	if req.SHA != "" && req.SHA != head {
		return mergeOutcome{status: http.StatusConflict, msg: "Head branch was modified. Review and try the merge again."}
	}
	base, err := f.git.resolve(repo.Path, "refs/heads/"+pr.Base)
	if err != nil {
		return mergeOutcome{status: http.StatusMethodNotAllowed, msg: "Base branch " + pr.Base + " does not exist"}
	}
	if msg := unmetChecksLocked(repo, pr.Base, head, gate.appID, gate.admin); msg != "" {
		return mergeOutcome{status: http.StatusMethodNotAllowed, msg: msg}
	}
	now := f.now()
	var sha string
	var clean bool
	switch req.MergeMethod {
	case "merge":
		from := repo.Owner.Login
		if pr.HeadRepo != nil {
			from = pr.HeadRepo.Owner.Login
		}
		title := fmt.Sprintf("Merge pull request #%d from %s/%s", n, from, pr.Head)
		sha, clean, err = f.mergeCommit(repo.Path, base, head, []string{base, head},
			commitMessage(req, title, is.Title), signatureOf(merger, now), webFlow(now))
	case "squash":
		var cs []gitCommit
		cs, err = f.git.logCommits(repo.Path, 0, head, "^"+base)
		if err != nil {
			break
		}
		var items []string
		for _, c := range cs {
			items = append(items, "* "+c.message)
		}
		title := fmt.Sprintf("%s (#%d)", is.Title, n)
		sha, clean, err = f.mergeCommit(repo.Path, base, head, []string{base},
			commitMessage(req, title, strings.Join(items, "\n\n")), signatureOf(is.User, now), webFlow(now))
	case "rebase":
		sha, clean, err = f.rebaseCommits(repo.Path, base, head, webFlow(now))
	}
	if err != nil {
		return mergeOutcome{status: http.StatusInternalServerError, msg: err.Error()}
	}
	if !clean {
		return mergeOutcome{status: http.StatusMethodNotAllowed, msg: "Merge conflict"}
	}
	if err := f.git.updateRef(repo.Path, "refs/heads/"+pr.Base, sha, base); err != nil {
		if errors.Is(err, errRefConflict) {
			return mergeOutcome{status: http.StatusConflict, msg: "Base branch was modified. Review and try the merge again."}
		}
		return mergeOutcome{status: http.StatusInternalServerError, msg: err.Error()}
	}
	t := now
	pr.Merged, pr.MergedAt, pr.MergedBy, pr.MergeCommitSHA = true, &t, merger, sha
	pr.HeadSHA, pr.BaseSHA = head, base
	is.State, is.ClosedAt, is.UpdatedAt = "closed", &t, now
	repo.PushedAt, repo.UpdatedAt = now, now
	return mergeOutcome{status: http.StatusOK, sha: sha,
		change: RefChange{Ref: "refs/heads/" + pr.Base, Before: base, After: sha},
		view:   viewIssueLocked(repo, is)}
}

// commitMessage is "title\n\nbody" from the request's commit_title and
// commit_message, or the defaults.
func commitMessage(req mergePullRequest, title, body string) string {
	if req.CommitTitle != nil && *req.CommitTitle != "" {
		title = *req.CommitTitle
	}
	if req.CommitMessage != nil {
		body = *req.CommitMessage
	}
	if body == "" {
		return title + "\n"
	}
	return title + "\n\n" + body + "\n"
}

// mergeCommit merges head into base and commits the merged tree with
// parents; clean is false on conflicts.
func (f *Forge) mergeCommit(path, base, head string, parents []string, msg string, author, committer Signature) (string, bool, error) {
	tree, clean, _, err := f.git.mergeTree(path, base, head)
	if err != nil || !clean {
		return "", clean, err
	}
	sha, err := f.git.commitTree(path, tree, parents, msg, author, committer)
	return sha, err == nil, err
}

// rebaseCommits replays the non-merge commits of base..head onto base,
// oldest first, with cherry-pick semantics: each commit's change (from its
// first parent) is merged onto the replayed tip; commits that become
// empty are dropped, as git rebase does. Authors and messages are kept.
func (f *Forge) rebaseCommits(path, base, head string, committer Signature) (string, bool, error) {
	cs, err := f.git.logCommits(path, 0, "--no-merges", head, "^"+base)
	if err != nil {
		return "", false, err
	}
	cur := base
	curTree, err := f.git.treeOf(path, base)
	if err != nil {
		return "", false, err
	}
	for _, c := range cs {
		parentTree := emptyTreeSHA
		if len(c.parents) > 0 {
			if parentTree, err = f.git.treeOf(path, c.parents[0]); err != nil {
				return "", false, err
			}
		}
		tree := c.tree
		if parentTree != curTree {
			var clean bool
			tree, clean, err = f.cherryPickTree(path, parentTree, curTree, c.tree)
			if err != nil || !clean {
				return "", false, err
			}
		}
		if tree == curTree {
			continue
		}
		msg := c.message + "\n"
		if cur, err = f.git.commitTree(path, tree, []string{cur}, msg, c.author, committer); err != nil {
			return "", false, err
		}
		curTree = tree
	}
	return cur, true, nil
}

// emptyTreeSHA is git's empty tree.
const emptyTreeSHA = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// cherryPickTree merges the change baseTree→theirsTree onto oursTree. Git
// 2.39's merge-tree has no --merge-base, so it merges two synthetic
// commits whose only common ancestor has baseTree.
func (f *Forge) cherryPickTree(path, baseTree, oursTree, theirsTree string) (string, bool, error) {
	sig := Signature{Name: "forge", Email: "forge@forge.local", When: time.Unix(1700000000, 0).UTC()}
	if baseTree == emptyTreeSHA {
		if _, err := f.git.writeObject(path, "tree", nil); err != nil {
			return "", false, err
		}
	}
	b, err := f.git.commitTree(path, baseTree, nil, "base\n", sig, sig)
	if err != nil {
		return "", false, err
	}
	o, err := f.git.commitTree(path, oursTree, []string{b}, "ours\n", sig, sig)
	if err != nil {
		return "", false, err
	}
	t, err := f.git.commitTree(path, theirsTree, []string{b}, "theirs\n", sig, sig)
	if err != nil {
		return "", false, err
	}
	tree, clean, _, err := f.git.mergeTree(path, o, t)
	return tree, clean, err
}
