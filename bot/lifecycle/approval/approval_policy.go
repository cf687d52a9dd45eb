package approval

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// The approval policy of proposals (SPEC §5) as pure domain logic, in the
// manner of palantir/policy-bot: Evaluate judges Inputs that
// Verdict (approval_facts.go) takes from ProposalFacts (requester, every
// changed package and its content digest, votes with the digests where
// they were given, approver lookups, readiness gates) and says who
// counted, who did not and why. Nothing here talks to GitHub or git; each
// requirement is a predicate in approval_requirements.go.

// VoteSource says where a vote came from.
type VoteSource string

// Vote sources.
const (
	// VoteFromReview is a pull request review.
	VoteFromReview VoteSource = "review"
	// VoteFromCommand is a `/porch approve` record written by the bot.
	VoteFromCommand VoteSource = "/porch approve"
)

// VoteState is what a vote says. Only approvals count; the other states
// cancel the same user's earlier approvals (GitHub's "latest review per
// user wins").
type VoteState string

// Vote states (GitHub's review states).
const (
	VoteApproved         VoteState = "APPROVED"
	VoteChangesRequested VoteState = "CHANGES_REQUESTED"
	VoteDismissed        VoteState = "DISMISSED"
)

// Vote is one approval-relevant act on a proposal: an approving review, a
// `/porch approve` record, or a review that cancels (changes requested,
// dismissed). Commented and pending reviews are not votes.
type Vote struct {
	User   string
	State  VoteState
	Source VoteSource
	// Commit is the commit the vote was given on (a review's commit_id, the
	// head recorded by /porch approve).
	Commit string
	// Digest is the proposal digest (ProposalDigest over the content
	// digests of every package the head changes) at Commit; "" when
	// unknown (a commit the cache lacks): such an approval given on an
	// older commit is stale. Digests are the per-package content digests
	// there (nil: unknown), to say which package changed.
	Digest  string
	Digests map[string]string
	// SameTrees: every package's git tree at Commit is the head's (false
	// when only Kptfile status.conditions differ, or unknown).
	SameTrees bool
	// At orders a user's votes; ties keep the input order.
	At time.Time
	// Allowed reports that User may approve under the policy (resolved
	// outside, see ApproverResolver and ApproverCandidates); Note explains
	// a refusal ("has read access", "not a member of @acme/platform").
	Allowed bool
	Note    string
	// OrphanAck: a `/porch approve --orphan-downstreams` record, which also
	// acknowledges the downstream packages a deletion leaves without their
	// upstream (approval_orphans.go).
	OrphanAck bool
}

// Inputs is everything the policy judges a proposal on.
type Inputs struct {
	// Author is whoever proposed the change: the pull request's author, or
	// the requester of a proposal the bot opened.
	Author string
	// Head is the proposal's head commit, HeadDigest the proposal digest
	// there (ProposalDigest of Packages).
	Head       string
	HeadDigest string
	// Packages are every package the head changes, with their content
	// digests at Head.
	Packages []PackageChange
	Votes    []Vote
	// Gates are the packages' readiness gates at Head.
	Gates []GateStatus
	// Render is the render check's state on Head (RenderUnknown: not
	// gathered, the requirement is not applied).
	Render rendercheck.RenderState
	// Orphans are the packages the head deletes that downstream packages
	// track, when the repository requires their acknowledgement
	// (lifecycle.deletionWithDownstreams: require-ack).
	Orphans []OrphanedPackage
}

// IgnoreReason says why an approval did not count.
type IgnoreReason string

// Reasons an approval is not counted.
const (
	IgnoredSelf        IgnoreReason = "self-approval"
	IgnoredNotApprover IgnoreReason = "not an approver"
	IgnoredStale       IgnoreReason = "stale content"
	IgnoredSuperseded  IgnoreReason = "superseded"
	IgnoredDismissed   IgnoreReason = "dismissed"
)

// CountedApproval is an approval that counts.
type CountedApproval struct {
	User   string
	Source VoteSource
	Commit string
	// Carried is true when the approval was given on an older commit whose
	// package content equals the head's; CarriedNote says how (the same
	// trees, or only readiness conditions changed).
	Carried     bool
	CarriedNote string
	// OrphanAck: it acknowledged the orphaned downstreams
	// (Vote.OrphanAck).
	OrphanAck bool
}

// IgnoredApproval is an approval (or dismissed review) that does not
// count, and why.
type IgnoredApproval struct {
	User   string
	Source VoteSource
	Commit string
	Reason IgnoreReason
	Detail string
}

// Result is the policy's verdict on a proposal.
type Result struct {
	Satisfied bool
	Required  int
	// Approvers are the counted approvals, one per user, sorted by user.
	Approvers []CountedApproval
	// Ignored are the approvals that do not count, in input order.
	Ignored []IgnoredApproval
	// MissingGates are the readiness gates whose condition is not True.
	MissingGates []GateStatus
	// RenderProblem says why the render requirement is not met ("": met
	// or not applied).
	RenderProblem string
	// OrphanProblem says why the deletion guard is not met ("": met, or
	// nothing deleted has downstreams): approval_orphans.go.
	OrphanProblem string
	// Summary is one human line: the verdict.
	Summary string
}

// ApproversNeeded is how many more counted approvers are needed.
func (r Result) ApproversNeeded() int {
	if n := r.Required - len(r.Approvers); n > 0 {
		return n
	}
	return 0
}

// propLoginKey folds a login for comparison (GitHub logins are
// case-insensitive).
func LoginKey(login string) string { return strings.ToLower(strings.TrimPrefix(login, "@")) }

// latestVotes orders votes by time (stable) and returns, per user, the
// index of the approval in force (-1 when the user's latest vote cancels),
// and the ignored entries of every superseded or dismissed vote. GitHub's
// times have one-second resolution: of two votes in the same second, the
// one given on the head is the later (it cannot be older than the head).
func latestVotes(votes []Vote, head string) (current map[string]int, order []string, ignored map[int]IgnoredApproval) {
	idx := make([]int, len(votes))
	for i := range idx {
		idx[i] = i
	}
	onHead := func(v Vote) bool { return head != "" && strings.EqualFold(v.Commit, head) }
	sort.SliceStable(idx, func(a, b int) bool {
		va, vb := votes[idx[a]], votes[idx[b]]
		if !va.At.Equal(vb.At) {
			return va.At.Before(vb.At)
		}
		return !onHead(va) && onHead(vb)
	})
	current = map[string]int{}
	ignored = map[int]IgnoredApproval{}
	for _, i := range idx {
		v := votes[i]
		key := LoginKey(v.User)
		if key == "" {
			continue
		}
		prev, seen := current[key]
		if !seen {
			order = append(order, key)
			prev = -1
		}
		if prev >= 0 {
			detail := fmt.Sprintf("superseded by a later %s on %s", describeVote(v), words.CommitOrUnknown(v.Commit))
			if v.State != VoteApproved {
				detail = fmt.Sprintf("cancelled by a later %s on %s", describeVote(v), words.CommitOrUnknown(v.Commit))
			}
			ignored[prev] = ignoredOf(votes[prev], IgnoredSuperseded, detail)
		}
		switch v.State {
		case VoteApproved:
			current[key] = i
		case VoteDismissed:
			ignored[i] = ignoredOf(v, IgnoredDismissed, "the review was dismissed")
			current[key] = -1
		default:
			current[key] = -1
		}
	}
	return current, order, ignored
}

func describeVote(v Vote) string {
	switch {
	case v.State == VoteApproved && v.Source == VoteFromCommand:
		return "/porch approve"
	case v.State == VoteApproved:
		return "approving review"
	case v.State == VoteChangesRequested:
		return "review requesting changes"
	case v.State == VoteDismissed:
		return "dismissed review"
	}
	return strings.ToLower(string(v.State))
}

func ignoredOf(v Vote, reason IgnoreReason, detail string) IgnoredApproval {
	return IgnoredApproval{User: v.User, Source: v.Source, Commit: v.Commit, Reason: reason, Detail: detail}
}

// ApproverCandidates are the users whose approver status can change the
// verdict: those whose latest vote is an approval that is not refused as
// self-approval. The step resolves only these (one lookup each at most),
// then sets Vote.Allowed before calling Evaluate.
func ApproverCandidates(policy config.Approvals, in Inputs) []string {
	current, order, _ := latestVotes(in.Votes, in.Head)
	var out []string
	for _, key := range order {
		i := current[key]
		if i < 0 {
			continue
		}
		if self, _ := SelfExcluded(policy, in.Author, in.Votes[i].User); self {
			continue
		}
		out = append(out, in.Votes[i].User)
	}
	return out
}

// Evaluate applies the approval policy to a proposal (pure: Verdict
// gathers its inputs). Each requirement is a predicate in a file of its
// own:
//   - per user, the latest vote wins: a later approval supersedes an
//     earlier one, a later CHANGES_REQUESTED or DISMISSED review cancels it;
//   - the author's approval never counts unless policy.AllowSelfApproval
//     (approval_requirements.go);
//   - approvals from users who are not allowed approvers do not count
//     (approval_requirements.go);
//   - an approval given on another commit than the head counts only if the
//     content of every package the head changes is the same there
//     (approval_requirements.go): a push that changes a package's content, or
//     adds or removes a package, dismisses it; one that changes only other
//     files, or only Kptfile status.conditions, does not;
//   - policy.Required distinct approvers are needed, every readiness gate
//     must be met (approval_requirements.go) and the render check must have
//     passed on the head when it is known (rendercheck.RenderProblem);
//   - a deletion of packages that downstream packages track needs one
//     counted approval that acknowledges it (approval_orphans.go).
func Evaluate(policy config.Approvals, in Inputs) Result {
	res := Result{Required: policy.Required}
	current, order, ignored := latestVotes(in.Votes, in.Head)
	for _, key := range order {
		i := current[key]
		if i < 0 {
			continue
		}
		v := in.Votes[i]
		if self, detail := SelfExcluded(policy, in.Author, v.User); self {
			ignored[i] = ignoredOf(v, IgnoredSelf, detail)
			continue
		}
		if refused, detail := approverRefused(policy, v); refused {
			ignored[i] = ignoredOf(v, IgnoredNotApprover, detail)
			continue
		}
		if stale, detail := staleApproval(v, in); stale {
			ignored[i] = ignoredOf(v, IgnoredStale, detail)
			continue
		}
		res.Approvers = append(res.Approvers, CountedApproval{User: v.User, Source: v.Source, Commit: v.Commit,
			Carried: v.Commit != in.Head, CarriedNote: carriedNote(v, in), OrphanAck: v.OrphanAck})
	}
	sort.Slice(res.Approvers, func(a, b int) bool {
		return LoginKey(res.Approvers[a].User) < LoginKey(res.Approvers[b].User)
	})
	for i := range in.Votes {
		if ig, ok := ignored[i]; ok {
			res.Ignored = append(res.Ignored, ig)
		}
	}
	res.MissingGates = unmetGates(in.Gates)
	res.RenderProblem = rendercheck.RenderProblem(in.Render)
	res.OrphanProblem = orphanProblem(in, res.Approvers)
	res.Satisfied = len(res.Approvers) >= policy.Required && len(res.MissingGates) == 0 && res.RenderProblem == "" &&
		res.OrphanProblem == ""
	res.Summary = summarizeApproval(res)
	return res
}

func summarizeApproval(res Result) string {
	var b strings.Builder
	names := make([]string, len(res.Approvers))
	for i, a := range res.Approvers {
		names[i] = "@" + a.User
	}
	switch {
	case res.Required <= 0:
		b.WriteString("No approval required")
	case len(res.Approvers) >= res.Required && (len(res.MissingGates) > 0 || res.OrphanProblem != ""):
		fmt.Fprintf(&b, "Approvals complete: %s (%d of %d required)", strings.Join(names, ", "), len(res.Approvers), res.Required)
	case len(res.Approvers) >= res.Required:
		fmt.Fprintf(&b, "Approved by %s (%d of %d required)", strings.Join(names, ", "), len(res.Approvers), res.Required)
	case len(res.Approvers) == 0:
		fmt.Fprintf(&b, "Waiting for %s (0 of %d)", words.Count(res.Required, "approval", "approvals"), res.Required)
	default:
		fmt.Fprintf(&b, "Waiting for %d more %s (%d of %d: %s)", res.ApproversNeeded(), words.Plural(res.ApproversNeeded(), "approval", "approvals"),
			len(res.Approvers), res.Required, strings.Join(names, ", "))
	}
	if len(res.Ignored) > 0 {
		fmt.Fprintf(&b, "; %s not counted", words.Count(len(res.Ignored), "approval", "approvals"))
	}
	if res.RenderProblem != "" {
		b.WriteString("; " + res.RenderProblem)
	}
	if res.OrphanProblem != "" {
		b.WriteString("; " + res.OrphanProblem)
	}
	if len(res.MissingGates) > 0 {
		gates := make([]string, len(res.MissingGates))
		for i, g := range res.MissingGates {
			gates[i] = g.ConditionType
		}
		fmt.Fprintf(&b, "; readiness %s not met: %s", words.Plural(len(gates), "gate", "gates"), strings.Join(gates, ", "))
	}
	b.WriteString(".")
	return b.String()
}

// Markdown is the check run's text: who counted, who did not and why,
// and the readiness gates.
func (r Result) Markdown(policy config.Approvals) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", r.Summary)
	b.WriteString("Policy: " + describeApprovalPolicy(policy) + "\n\n")
	if len(r.Approvers) > 0 {
		b.WriteString("| Counted | via | on commit |\n|---|---|---|\n")
		for _, a := range r.Approvers {
			on := mdquote.CodeCell(words.CommitOrUnknown(a.Commit))
			if a.Carried {
				on += " (" + a.CarriedNote + ")"
			}
			if a.OrphanAck {
				on += "; " + orphanAckNote
			}
			fmt.Fprintf(&b, "| @%s | %s | %s |\n", a.User, a.Source, on)
		}
		b.WriteString("\n")
	}
	if len(r.Ignored) > 0 {
		b.WriteString("Not counted:\n")
		for _, ig := range r.Ignored {
			fmt.Fprintf(&b, "- @%s (%s on %s): **%s** — %s\n", ig.User, ig.Source, mdquote.Code(words.CommitOrUnknown(ig.Commit)), ig.Reason, ig.Detail)
		}
		b.WriteString("\n")
	}
	if r.RenderProblem != "" {
		fmt.Fprintf(&b, "Render: **%s** (check %s).\n\n", r.RenderProblem, mdquote.Code(core.RenderCheckName))
	}
	if r.OrphanProblem != "" {
		fmt.Fprintf(&b, "Downstreams: this proposal %s.\n\n", r.OrphanProblem)
	}
	if len(r.MissingGates) > 0 {
		b.WriteString("Readiness gates not met (Kptfile `info.readinessGates`, conditions in `status.conditions`):\n")
		for _, g := range r.MissingGates {
			if g.Package != "" {
				fmt.Fprintf(&b, "- %s of %s: %s\n", mdquote.Code(g.ConditionType), mdquote.Code(g.Package), mdquote.Text(g.Describe()))
				continue
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdquote.Code(g.ConditionType), mdquote.Text(g.Describe()))
		}
	}
	return b.String()
}

func describeApprovalPolicy(p config.Approvals) string {
	who := "users with write access"
	if len(p.Approvers) > 0 {
		names := make([]string, len(p.Approvers))
		for i, a := range p.Approvers {
			names[i] = a.String()
		}
		who = strings.Join(names, ", ")
	}
	self := "self-approval not allowed"
	if p.AllowSelfApproval {
		self = "self-approval allowed"
	}
	return fmt.Sprintf("%s from %s; %s; a push keeps approvals only if the content of every changed package is unchanged (Kptfile status.conditions aside).",
		words.Count(p.Required, "approval", "approvals"), who, self)
}
