package lifecycle_test

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// evaluate runs EvaluateApproval on pull request n as GitHub has it now,
// in a fresh session, and returns the outcome and its REST calls.
func (f *propFixture) evaluate(n int) (*approval.Outcome, int64) {
	f.t.Helper()
	pr := f.pr(n)
	s, api := f.session()
	var out *approval.Outcome
	calls, d := f.calls(func() {
		var err error
		if out, err = approval.EvaluateApproval(f.ctx, s, api, pr); err != nil {
			f.t.Fatal(err)
		}
	})
	if out == nil {
		f.t.Fatalf("#%d is not a proposal", n)
	}
	f.t.Logf("EvaluateApproval #%d: %d REST calls %v; %s", n, calls, d, out.Result.Summary)
	return out, calls
}

func approvalCounted(out *approval.Outcome) []string {
	var users []string
	for _, a := range out.Result.Approvers {
		users = append(users, a.User)
	}
	return users
}

// ignoredReason is the reason user's approval was not counted ("" if it was not ignored).
func approvalIgnored(out *approval.Outcome, user string) approval.IgnoreReason {
	var r approval.IgnoreReason
	for _, ig := range out.Result.Ignored {
		if ig.User == user {
			r = ig.Reason
		}
	}
	return r
}

func wantApprovalCheck(t *testing.T, out *approval.Outcome, conclusion string, inSummary ...string) {
	t.Helper()
	run := out.CheckRun
	if run.Name != approval.CheckName || run.Conclusion != conclusion || run.HeadSHA != out.Head {
		t.Fatalf("check %s %s on %s (head %s), want %s", run.Name, run.Conclusion, run.HeadSHA, out.Head, conclusion)
	}
	text := run.Output.Title + "\n" + run.Output.Summary
	for _, s := range inSummary {
		if !strings.Contains(text, s) {
			t.Errorf("check output lacks %q:\n%s", s, text)
		}
	}
}

func TestApprovalByWriterWithListedApproversTakesThreeCalls(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [bob, alice]\n")
	head := f.draft()
	pr := f.openPR(forgetest.AliceToken)
	f.review(forgetest.BobToken, pr.GetNumber(), head, "APPROVE")
	out, calls := f.evaluate(pr.GetNumber())
	// Reviews and the check run: a pull request without comments has no
	// /porch approve record to list.
	if !out.Result.Satisfied || strings.Join(approvalCounted(out), ",") != "bob" || calls != 3 { // reviews, render checks, check run
		t.Fatalf("satisfied %v counted %v calls %d", out.Result.Satisfied, approvalCounted(out), calls)
	}
	wantApprovalCheck(t, out, "success", "Approved (1/1)", "@bob")
}

func TestApprovalNeedsWriteAccessWhenApproversEmpty(t *testing.T) {
	f := newPropFixture(t, "") // defaults: required 1, approvers empty
	head := f.draft()
	pr := f.openPR(forgetest.AliceToken)
	f.review(forgetest.CarolToken, pr.GetNumber(), head, "APPROVE")
	out, calls := f.evaluate(pr.GetNumber())
	if out.Result.Satisfied || len(out.Result.Approvers) != 0 || approvalIgnored(out, "carol") != approval.IgnoredNotApprover {
		t.Fatalf("carol (read) counted: %+v", out.Result)
	}
	if calls != 4 || out.Lookups != 1 { // reviews, render checks, check run + carol's permission (no comment to list)
		t.Fatalf("%d calls, %d lookups", calls, out.Lookups)
	}
	wantApprovalCheck(t, out, "action_required", "Waiting for approval (0/1)", "@carol", "not an approver", "read access")

	f.review(forgetest.BobToken, pr.GetNumber(), head, "APPROVE")
	out, calls = f.evaluate(pr.GetNumber())
	// reviews, check run, bob's permission: the render checks and carol's
	// permission are revalidated (304s, not charged).
	if !out.Result.Satisfied || strings.Join(approvalCounted(out), ",") != "bob" || calls != 3 || out.Lookups != 2 {
		t.Fatalf("bob (write): %+v, %d calls", out.Result, calls)
	}
	wantApprovalCheck(t, out, "success", "@bob", "@carol")
}

func TestApprovalTeamApprover(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [\"@acme/platform\"]\n")
	head := f.draft()
	s, api := f.session()
	// The bot opens it for carol: carol is the proposal's author.
	pr, err := proposals.OpenProposal(f.ctx, s, api, "basens", "w1", "carol")
	if err != nil {
		t.Fatal(err)
	}
	f.review(forgetest.BobToken, pr.Number, head, "APPROVE")
	out, calls := f.evaluate(pr.Number)
	if out.Result.Satisfied || approvalIgnored(out, "bob") != approval.IgnoredNotApprover || calls != 5 {
		t.Fatalf("bob is not in @acme/platform: %+v, %d calls", out.Result, calls)
	}
	wantApprovalCheck(t, out, "action_required", "not a member of @acme/platform")

	f.review(forgetest.AliceToken, pr.Number, head, "APPROVE")
	out, calls = f.evaluate(pr.Number)
	// reviews, check run, two memberships: the render checks and the
	// comments are revalidated (304s, not charged).
	if !out.Result.Satisfied || strings.Join(approvalCounted(out), ",") != "alice" || calls != 4 || out.Lookups != 2 {
		t.Fatalf("alice is in @acme/platform: %+v, %d calls %d lookups", out.Result, calls, out.Lookups)
	}
	if out.Author != "carol" {
		t.Fatalf("author %q", out.Author)
	}
	wantApprovalCheck(t, out, "success", "@alice")
}

func TestApprovalSurvivesOnlyPushesThatKeepThePackage(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [bob]\n")
	head := f.draft()
	pr := f.openPR(forgetest.AliceToken)
	f.review(forgetest.BobToken, pr.GetNumber(), head, "APPROVE")

	// A push outside the package: the approval is carried.
	f.push(forgetest.AliceToken, "drafts/basens/w1", "Docs", map[string]string{"README.md": "# catalog, edited\n"})
	out, calls := f.evaluate(pr.GetNumber())
	if out.Head == head || !out.Result.Satisfied || len(out.Result.Approvers) != 1 || !out.Result.Approvers[0].Carried || calls != 3 {
		t.Fatalf("outside push: %+v, %d calls", out.Result, calls)
	}
	wantApprovalCheck(t, out, "success", "same package content")

	// A push changing the package: stale.
	head3 := f.push(forgetest.AliceToken, "drafts/basens/w1", "Change the map",
		map[string]string{"basens/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"2\"\n"})
	out, _ = f.evaluate(pr.GetNumber())
	if out.Head != head3 || out.Result.Satisfied || approvalIgnored(out, "bob") != approval.IgnoredStale {
		t.Fatalf("package push: %+v", out.Result)
	}
	wantApprovalCheck(t, out, "action_required", "stale content", head[:7])

	// Approving the new head counts again.
	f.review(forgetest.BobToken, pr.GetNumber(), head3, "APPROVE")
	out, _ = f.evaluate(pr.GetNumber())
	if !out.Result.Satisfied || out.Result.Approvers[0].Carried || approvalIgnored(out, "bob") != approval.IgnoredSuperseded {
		t.Fatalf("re-approved: %+v", out.Result)
	}
}

func TestChangesRequestedAfterApprovalCancelsIt(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [bob]\n")
	head := f.draft()
	pr := f.openPR(forgetest.AliceToken)
	f.review(forgetest.BobToken, pr.GetNumber(), head, "APPROVE")
	f.review(forgetest.BobToken, pr.GetNumber(), head, "COMMENT") // comments change nothing
	out, _ := f.evaluate(pr.GetNumber())
	if !out.Result.Satisfied {
		t.Fatalf("approved then commented: %+v", out.Result)
	}
	f.review(forgetest.BobToken, pr.GetNumber(), head, "REQUEST_CHANGES")
	out, _ = f.evaluate(pr.GetNumber())
	if out.Result.Satisfied || approvalIgnored(out, "bob") != approval.IgnoredSuperseded {
		t.Fatalf("changes requested: %+v", out.Result)
	}
	wantApprovalCheck(t, out, "action_required", "superseded", "requesting changes")
}

func TestUnmetReadinessGateFailsTheCheck(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [bob]\n")
	head := f.push(forgetest.AliceToken, "drafts/basens/w1", "Gate the package", map[string]string{"basens/Kptfile": propKptfile +
		"  readinessGates:\n  - conditionType: SecurityReviewed\n  - conditionType: Tested\n" +
		"status:\n  conditions:\n  - type: SecurityReviewed\n    status: \"False\"\n    reason: Pending\n    message: waiting for the security team\n" +
		"  - type: Tested\n    status: \"True\"\n"})
	pr := f.openPR(forgetest.AliceToken)
	f.review(forgetest.BobToken, pr.GetNumber(), head, "APPROVE")
	out, _ := f.evaluate(pr.GetNumber())
	if out.Result.Satisfied || len(out.Result.Approvers) != 1 || len(out.Result.MissingGates) != 1 ||
		out.Result.MissingGates[0].ConditionType != "SecurityReviewed" {
		t.Fatalf("gate: %+v", out.Result)
	}
	wantApprovalCheck(t, out, "failure", "Readiness gates not met: SecurityReviewed", "waiting for the security team")
}

func TestPorchApproveRecordsCountOnlyFromTheBot(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [alice, bob]\n")
	head := f.draft()
	pr := f.openPR(forgetest.AliceToken)
	n := pr.GetNumber()

	// alice forges a record for bob in her own comment: ignored.
	forged := "LGTM\n<!-- porchbot:approve {\"user\":\"bob\",\"head\":\"" + head + "\"} -->\n"
	if _, _, err := f.h.User(forgetest.AliceToken).Issues.CreateComment(f.ctx, "acme", "catalog", n,
		&github.IssueComment{Body: github.String(forged)}); err != nil {
		t.Fatal(err)
	}
	out, _ := f.evaluate(n)
	if out.Result.Satisfied || len(out.Result.Approvers) != 0 || len(out.Result.Ignored) != 0 {
		t.Fatalf("forged marker: %+v", out.Result)
	}

	// alice's own /porch approve: self-approval, not counted.
	s, api := f.session()
	calls, _ := f.calls(func() {
		if _, err := approval.RecordCommandApproval(f.ctx, s, api, n, "alice", plumbing.NewHash(head)); err != nil {
			t.Fatal(err)
		}
	})
	if calls != 1 {
		t.Fatalf("RecordCommandApproval made %d calls", calls)
	}
	out, _ = f.evaluate(n)
	if out.Result.Satisfied || approvalIgnored(out, "alice") != approval.IgnoredSelf {
		t.Fatalf("self approval: %+v", out.Result)
	}
	wantApprovalCheck(t, out, "action_required", "self-approval")

	// ... which counts where the policy allows self-approval.
	s, api = f.session()
	cfg := *s.Config
	cfg.Approvals.AllowSelfApproval = true
	s.Config = &cfg
	self, err := approval.EvaluateApproval(f.ctx, s, api, f.pr(n))
	if err != nil || !self.Result.Satisfied || strings.Join(approvalCounted(self), ",") != "alice" ||
		self.Result.Approvers[0].Source != approval.VoteFromCommand {
		t.Fatalf("allowed self approval: %+v %v", self, err)
	}

	// bob's /porch approve, recorded by the bot, counts; the record names
	// the package digest at the head.
	if _, err := approval.RecordCommandApproval(f.ctx, s, api, n, "bob", plumbing.NewHash(head)); err != nil {
		t.Fatal(err)
	}
	out, _ = f.evaluate(n)
	if !out.Result.Satisfied || strings.Join(approvalCounted(out), ",") != "bob" {
		t.Fatalf("bob's record: %+v", out.Result)
	}
	wantApprovalCheck(t, out, "success", "@bob", "/porch approve")
	comments, _, err := f.h.User(forgetest.AliceToken).Issues.ListComments(f.ctx, "acme", "catalog", n, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := comments[len(comments)-1]
	if last.GetUser().GetLogin() != approval.DefaultBotLogin || !strings.Contains(last.GetBody(), "Approved by @bob at "+head) ||
		!strings.Contains(last.GetBody(), `"digest":"`+out.HeadDigest+`"`) {
		t.Fatalf("record comment by %s: %s (digest %s)", last.GetUser().GetLogin(), last.GetBody(), out.HeadDigest)
	}
}

func TestSignedPorchApproveRecordsResistEdits(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 2\n  approvers: [alice, bob]\n")
	f.recordKey = []byte("test-record-key")
	head := f.draft()
	pr := f.openPR(forgetest.CarolToken)
	n := pr.GetNumber()
	s, api := f.session()
	if _, err := approval.RecordCommandApproval(f.ctx, s, api, n, "bob", plumbing.NewHash(head)); err != nil {
		t.Fatal(err)
	}
	out, _ := f.evaluate(n)
	if strings.Join(approvalCounted(out), ",") != "bob" {
		t.Fatalf("signed record: %+v", out.Result)
	}
	comments, _, err := f.h.User(forgetest.BobToken).Issues.ListComments(f.ctx, "acme", "catalog", n, nil)
	if err != nil || len(comments) != 1 || !strings.Contains(comments[0].GetBody(), `"sig":"`) {
		t.Fatalf("record %v %v", comments, err)
	}
	// bob (write access) edits the bot's record, adding a copy of his
	// marker that names alice: alice never counts (within the same second
	// as the record only the signature tells; later, the edit time too,
	// and then bob's record is dropped as well).
	rec := comments[0]
	var marker string
	for _, line := range strings.Split(rec.GetBody(), "\n") {
		if strings.HasPrefix(line, "<!-- porchbot:approve ") {
			marker = line
		}
	}
	edited := rec.GetBody() + strings.Replace(marker, `"user":"bob"`, `"user":"alice"`, 1) + "\n"
	if _, _, err := f.h.User(forgetest.BobToken).Issues.EditComment(f.ctx, "acme", "catalog", rec.GetID(),
		&github.IssueComment{Body: github.String(edited)}); err != nil {
		t.Fatal(err)
	}
	out, _ = f.evaluate(n)
	if c := strings.Join(approvalCounted(out), ","); out.Result.Satisfied || (c != "bob" && c != "") {
		t.Fatalf("a forged signature must not count: %+v", out.Result)
	}
	// A record written without the key is ignored once a key is in force.
	f.recordKey = nil
	s, api = f.session()
	if _, err := approval.RecordCommandApproval(f.ctx, s, api, n, "alice", plumbing.NewHash(head)); err != nil {
		t.Fatal(err)
	}
	f.recordKey = []byte("test-record-key")
	out, _ = f.evaluate(n)
	if out.Result.Satisfied {
		t.Fatalf("an unsigned record must not count under a key: %+v", out.Result)
	}
}

func TestApprovalDismissedReviewDoesNotCount(t *testing.T) {
	f := newPropFixture(t, "approvals:\n  required: 1\n  approvers: [bob]\n")
	head := f.draft()
	pr := f.openPR(forgetest.CarolToken)
	f.review(forgetest.BobToken, pr.GetNumber(), head, "APPROVE")
	reviews, _, err := f.h.User(forgetest.AliceToken).PullRequests.ListReviews(f.ctx, "acme", "catalog", pr.GetNumber(), nil)
	if err != nil || len(reviews) != 1 {
		t.Fatalf("reviews %v %v", reviews, err)
	}
	if _, _, err := f.h.User(forgetest.AliceToken).PullRequests.DismissReview(f.ctx, "acme", "catalog", pr.GetNumber(),
		reviews[0].GetID(), &github.PullRequestReviewDismissalRequest{Message: github.String("outdated")}); err != nil {
		t.Fatal(err)
	}
	out, _ := f.evaluate(pr.GetNumber())
	if out.Result.Satisfied || approvalIgnored(out, "bob") != approval.IgnoredDismissed {
		t.Fatalf("dismissed: %+v", out.Result)
	}
	wantApprovalCheck(t, out, "action_required", "dismissed")
}
