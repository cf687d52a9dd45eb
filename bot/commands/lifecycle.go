package commands

import (
	"context"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
)

// Lifecycle is every lifecycle operation the verbs need, with plain
// arguments. The drafts half (List, NewDraft, EditDraft, Clone) is
// implemented by DraftOps over bot/lifecycle; the proposals half is
// adapted from the lifecycle steps (OpenProposal, RecordCommandApproval,
// Reject, RenderDraft, ProposeDeletion, PublishPackage) when the handler is
// wired. Errors that are *core.RequestError or UserError are shown to
// the commenter as they are; others are logged and reported as internal.
type Lifecycle interface {
	// List is /porch list.
	List(ctx context.Context, s *core.Session) (*proposals.Listing, error)
	// NewDraft is /porch init.
	NewDraft(ctx context.Context, s *core.Session, req proposals.NewDraftRequest) (*proposals.Draft, error)
	// EditDraft is /porch edit and /porch rollback.
	EditDraft(ctx context.Context, s *core.Session, req proposals.EditRequest) (*proposals.Draft, error)
	// Clone is /porch clone; open opens other repositories (it checks the
	// commenter may read them).
	Clone(ctx context.Context, s *core.Session, req proposals.CloneRequest, open proposals.RepoOpener) (*proposals.Draft, error)

	// OpenProposal opens the pull request of draft pkg/workspace into the
	// deployment branch labelled porch/proposed (or labels the open one).
	OpenProposal(ctx context.Context, s *core.Session, pkg, workspace, by string) (Outcome, error)
	// RecordApproval records /porch approve by login on pull request pr at
	// the head it had when the comment was written (at, GitHub's
	// created_at); the approval policy decides whether it counts
	// (Outcome.Text says). A head that cannot be established is a refusal.
	// orphans (--orphan-downstreams) also acknowledges the downstream
	// packages a deletion leaves without their upstream.
	RecordApproval(ctx context.Context, s *core.Session, pr int, at time.Time, login string, orphans bool) (Outcome, error)
	// Reject closes proposal pr with a reason ("" for none); the draft
	// branch stays.
	Reject(ctx context.Context, s *core.Session, pr int, login, reason string) (Outcome, error)
	// Render renders draft pkg/workspace again now (porchbot/render);
	// headSHA is the pull request's head as the comment saw it.
	Render(ctx context.Context, s *core.Session, pkg, workspace, headSHA string) (Outcome, error)
	// ProposeDeletion opens the deletion proposal of pkg.
	ProposeDeletion(ctx context.Context, s *core.Session, pkg, by string) (Outcome, error)
	// Publish tags pkg ("": the package of pull request pr's draft) as
	// merged by pull request pr (0: at the deployment branch's head), for
	// publishOn: never or, by an approver, a landing refused for want of
	// approval.
	Publish(ctx context.Context, s *core.Session, pr int, pkg, by string) (Outcome, error)
}

// Upgrader is implemented by a Lifecycle that can run /porch upgrade
// (toRevision 0: the latest upstream revision; strategy "": the Kptfile's):
// the package's update pull request. Without it, upgrade replies that this
// server does not make update pull requests.
type Upgrader interface {
	Upgrade(ctx context.Context, s *core.Session, pkg string, toRevision int, strategy, by string) (Outcome, error)
}

// Outcome is what a lifecycle operation reports to the commenter: a
// markdown sentence and the things to link after it.
type Outcome struct {
	// Text is markdown: one sentence or a few lines.
	Text string
	// PullRequest is linked as #N when set.
	PullRequest int
	// Branch is linked to its tree when set.
	Branch string
	// Tag is linked to its tree when set.
	Tag string
	// CheckURL is linked as "check" when set.
	CheckURL string
}

// UserError is an error whose message is written for the commenter. The
// Lifecycle adapters return it for refusals that are not
// *core.RequestError.
type UserError struct{ Msg string }

func (e *UserError) Error() string { return e.Msg }

// DraftOps is the drafts half of Lifecycle, over bot/lifecycle's Session
// methods. Embed it in the wired Lifecycle.
type DraftOps struct{}

// List is Session.List.
func (DraftOps) List(ctx context.Context, s *core.Session) (*proposals.Listing, error) {
	return proposals.List(ctx, s)
}

// NewDraft is Session.NewDraft.
func (DraftOps) NewDraft(ctx context.Context, s *core.Session, req proposals.NewDraftRequest) (*proposals.Draft, error) {
	return proposals.NewDraft(ctx, s, req)
}

// EditDraft is Session.EditDraft.
func (DraftOps) EditDraft(ctx context.Context, s *core.Session, req proposals.EditRequest) (*proposals.Draft, error) {
	return proposals.EditDraft(ctx, s, req)
}

// Clone is Session.Clone.
func (DraftOps) Clone(ctx context.Context, s *core.Session, req proposals.CloneRequest, open proposals.RepoOpener) (*proposals.Draft, error) {
	return proposals.Clone(ctx, s, req, open)
}
