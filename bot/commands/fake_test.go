package commands_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// fakeLifecycle runs drafts for real (DraftOps) and records the proposal
// operations, answering err when set.
type fakeLifecycle struct {
	commands.DraftOps
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeLifecycle) record(format string, a ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
	return f.err
}

func (f *fakeLifecycle) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeLifecycle) OpenProposal(_ context.Context, s *core.Session, pkg, ws, by string) (commands.Outcome, error) {
	err := f.record("propose %s %s/%s by %s", s.Repo.FullName(), pkg, ws, by)
	return commands.Outcome{Text: "Opened the proposal.", PullRequest: 42, Branch: "drafts/" + pkg + "/" + ws}, err
}

func (f *fakeLifecycle) RecordApproval(_ context.Context, _ *core.Session, pr int, at time.Time, login string, orphans bool) (commands.Outcome, error) {
	err := f.record("approve #%d written %s by %s", pr, at.UTC().Format(time.RFC3339), login)
	if orphans {
		err = f.record("approve #%d acknowledging orphaned downstreams", pr)
	}
	return commands.Outcome{Text: "Approval recorded; the policy counts it."}, err
}

func (f *fakeLifecycle) Reject(_ context.Context, _ *core.Session, pr int, login, reason string) (commands.Outcome, error) {
	err := f.record("reject #%d by %s: %s", pr, login, reason)
	return commands.Outcome{Text: "Closed."}, err
}

func (f *fakeLifecycle) Render(_ context.Context, _ *core.Session, pkg, ws, head string) (commands.Outcome, error) {
	err := f.record("render %s/%s at %s", pkg, ws, head)
	return commands.Outcome{Text: "Rendered.", CheckURL: "https://example.com/check/1"}, err
}

func (f *fakeLifecycle) ProposeDeletion(_ context.Context, _ *core.Session, pkg, by string) (commands.Outcome, error) {
	err := f.record("delete %s by %s", pkg, by)
	return commands.Outcome{Text: "Deletion proposed.", PullRequest: 43}, err
}

func (f *fakeLifecycle) Publish(_ context.Context, _ *core.Session, pr int, pkg, by string) (commands.Outcome, error) {
	err := f.record("publish #%d by %s", pr, by)
	if pkg != "" {
		err = f.record("publish %s #%d by %s", pkg, pr, by)
	}
	return commands.Outcome{Text: "Published.", Tag: "basens/v1"}, err
}
