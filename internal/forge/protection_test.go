package forge_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestProtectedBranchRefusesMergesUntilRequiredChecksPass: main requires
// porchbot/approval from the App and a "ci" status. A merge is refused,
// in GitHub's words, while a check is missing, in progress or failed, or
// satisfied by the wrong maker (a commit status where the App's check run
// is required); administrators are bound only with enforce_admins; once
// both pass, the merge goes through.
func TestProtectedBranchRefusesMergesUntilRequiredChecksPass(t *testing.T) {
	ctx := context.Background()
	env := forgetest.New(t)
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice, bob := env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken)
	if _, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"),
		Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	head := chkSeedCommit(t, env, "feature", map[string]string{"README.md": "hi\n", "cm.yaml": "a: 1\n"})
	inst := env.Client(env.InstallationToken(t))
	pr, _, err := bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("Add cm"),
		Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}

	// Only an administrator may protect a branch.
	checks := []*github.RequiredStatusCheck{{Context: "porchbot/approval", AppID: github.Int64(forgetest.AppID)}, {Context: "ci"}}
	req := &github.ProtectionRequest{RequiredStatusChecks: &github.RequiredStatusChecks{Strict: false, Checks: &checks},
		EnforceAdmins: false}
	if _, resp, err := bob.Repositories.UpdateBranchProtection(ctx, "acme", "catalog", "main", req); resp == nil || resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
		t.Fatalf("bob protected main: %v", err)
	}
	if _, _, err := alice.Repositories.UpdateBranchProtection(ctx, "acme", "catalog", "main", req); err != nil {
		t.Fatal(err)
	}
	if b, _, err := bob.Repositories.GetBranch(ctx, "acme", "catalog", "main", 0); err != nil || !b.GetProtected() {
		t.Fatalf("main protected %v, %v", b.GetProtected(), err)
	}

	merge := func(c *github.Client) string {
		t.Helper()
		_, resp, err := c.PullRequests.Merge(ctx, "acme", "catalog", pr.GetNumber(), "", nil)
		if err == nil {
			return "merged"
		}
		if resp == nil || resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("merge: %v", err)
		}
		return err.(*github.ErrorResponse).Message
	}
	if got, want := merge(bob), "2 of 2 required status checks are expected."; got != want {
		t.Fatalf("merge with nothing reported: %q, want %q", got, want)
	}
	run, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{Name: "porchbot/approval",
		HeadSHA: head, Status: github.String("in_progress")})
	if err != nil {
		t.Fatal(err)
	}
	// ci passes as a commit status; porchbot/approval is only a status too:
	// the App's check run is what counts for it.
	for _, ctxName := range []string{"ci", "porchbot/approval"} {
		if _, _, err := alice.Repositories.CreateStatus(ctx, "acme", "catalog", head, &github.RepoStatus{State: github.String("success"), Context: github.String(ctxName)}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := merge(bob), `Required status check "porchbot/approval" is expected.`; got != want {
		t.Fatalf("merge with the approval in progress: %q, want %q", got, want)
	}
	if _, _, err := inst.Checks.UpdateCheckRun(ctx, "acme", "catalog", run.GetID(), github.UpdateCheckRunOptions{Name: "porchbot/approval",
		Status: github.String("completed"), Conclusion: github.String("action_required")}); err != nil {
		t.Fatal(err)
	}
	if got, want := merge(bob), `Required status check "porchbot/approval" is failing.`; got != want {
		t.Fatalf("merge with the approval failed: %q, want %q", got, want)
	}
	// alice administers acme/catalog: not bound unless enforce_admins.
	if err := env.Forge.Protect("acme/catalog", "main", &forge.BranchProtection{EnforceAdmins: true,
		Checks: []forge.RequiredCheck{{Context: "porchbot/approval", AppID: forgetest.AppID}, {Context: "ci"}}}); err != nil {
		t.Fatal(err)
	}
	if got := merge(alice); !strings.Contains(got, "is failing") {
		t.Fatalf("alice merged past enforce_admins: %q", got)
	}
	// The newest run of the name counts.
	if _, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{Name: "porchbot/approval",
		HeadSHA: head, Status: github.String("completed"), Conclusion: github.String("success")}); err != nil {
		t.Fatal(err)
	}
	if got := merge(bob); got != "merged" {
		t.Fatalf("merge with every required check passed: %q", got)
	}
}
