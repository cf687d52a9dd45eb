package dashboard

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
)

// Finding and keeping the one dashboard issue of a repository, from
// GitHub's state only (no local state: every replica decides the same):
//
//   - porchbot's dashboards are its issues labelled porch/dashboard whose
//     body starts with the dashboard marker; the one with the lowest number
//     is the dashboard. Two replicas that both found none and both created
//     one converge: each lists again after creating, and a dashboard that
//     is not the lowest is closed as a duplicate (the claim is the issue
//     number GitHub hands out, which no two creations share);
//   - a dashboard closed by a person stays closed until the configuration
//     file changes on the deployment branch after the close (with
//     dashboard.enabled true); one porchbot closed (dashboard.enabled
//     false) is opened again as soon as the configuration enables it;
//   - at most one edit per Interval, whatever the replica: an
//     edit is put off until the issue's updated_at is that old.

// Interval is the least time between two edits of a dashboard.
const Interval = 10 * time.Second

// dashboardListMax bounds the dashboards listed (porchbot's and
// duplicates).
const ListMax = 30

// configChangeWalk bounds the commits walked to find a configuration
// change after a dashboard was closed.
const configChangeWalk = 1000

// Issues is the issues API the dashboard uses (a part of hub.API).
type Issues interface {
	ListIssues(ctx context.Context, owner, repo string, q hub.IssueQuery) ([]hub.Issue, hub.Next, error)
	GetIssue(ctx context.Context, owner, repo string, number int) (hub.Issue, error)
	CreateIssue(ctx context.Context, owner, repo string, w hub.IssueWrite) (hub.Issue, error)
	EditIssue(ctx context.Context, owner, repo string, number int, w hub.IssueWrite) (hub.Issue, error)
}

// Refresh is one refresh of a dashboard.
type Refresh struct {
	Issues Issues
	// BotLogin is porchbot's bot user (DefaultBotLogin when empty).
	BotLogin string
	// MayCreate lets the refresh open a missing dashboard (install,
	// resync); an event's refresh only edits one that exists.
	MayCreate bool
	// Facts gathers what the body shows (it costs calls: only when it is
	// needed); Gather.
	Facts func(ctx context.Context, s *core.Session) (*Facts, error)
	// Now is the clock (time.Now when nil); Interval the least time
	// between edits (Interval when zero).
	Now      func() time.Time
	Interval time.Duration
}

// Outcome is what a refresh did.
type Outcome struct {
	Number                                 int
	Created, Reopened, Edited, Closed      bool
	Unchanged, StaysClosed, Missing, Racey bool
	// RetryAt is set when an edit was put off (the interval): refresh
	// again then.
	RetryAt time.Time
	// Duplicates are the dashboards closed as duplicates.
	Duplicates []int
}

// Outcome names what the sync did, for metrics and logs.
func (o *Outcome) Outcome() string {
	switch {
	case o == nil:
		return "failed"
	case o.Created:
		return "created"
	case o.Reopened:
		return "reopened"
	case o.Edited:
		return "edited"
	case o.Closed:
		return "closed"
	case !o.RetryAt.IsZero():
		return "put_off"
	case o.StaysClosed:
		return "stays_closed"
	case o.Missing:
		return "missing"
	}
	return "unchanged"
}

// dashboardIssue is what the decision reads of a dashboard issue.
type dashboardIssue struct {
	Number    int
	Open      bool
	Body      string
	UpdatedAt time.Time
	ClosedAt  time.Time
	// ClosedByBot: porchbot closed it (dashboard.enabled false).
	ClosedByBot bool
}

// dashboardStep is what to do with the dashboard.
type dashboardStep int

const (
	stepNone dashboardStep = iota
	stepCreate
	stepReopen
	stepEdit
	stepWait // an edit, put off until the interval has passed
	stepClose
	stepStayClosed
)

// decideDashboard is the rule of the file comment, pure. configChanged
// reports a change of the configuration file after the dashboard was
// closed (only asked for a dashboard a person closed).
func decideDashboard(enabled, mayCreate bool, d *dashboardIssue, configChanged func() bool, body string, now time.Time, interval time.Duration) dashboardStep {
	switch {
	case !enabled:
		if d != nil && d.Open {
			return stepClose
		}
		return stepNone
	case d == nil:
		if mayCreate {
			return stepCreate
		}
		return stepNone
	case !d.Open:
		if d.ClosedByBot || configChanged() {
			return stepReopen
		}
		return stepStayClosed
	case d.Body == body:
		return stepNone
	case now.Sub(d.UpdatedAt) < interval:
		return stepWait
	}
	return stepEdit
}

// Sync brings the repository's dashboard in line with its
// configuration and facts (see the file comment). It lists the dashboards
// first and opens the session (a fetch) only when there is one, or one
// may be created; none is created in a repository with nothing of
// porchbot's yet (Facts.Empty). REST calls: one list; one read of a closed dashboard
// (who closed it); the body's own when the dashboard is open or opened;
// one create, reopen, close or edit when needed (an edit only when the
// body changed), and one more list after a create.
func Sync(ctx context.Context, repo core.Repo, open func(context.Context) (*core.Session, error), sync Refresh) (*Outcome, error) {
	now := time.Now
	if sync.Now != nil {
		now = sync.Now
	}
	bot := sync.BotLogin
	if bot == "" {
		bot = approval.DefaultBotLogin
	}
	owner, name := repo.Owner, repo.Name
	all, err := listDashboards(ctx, sync.Issues, owner, name, bot)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	if len(all) == 0 && !sync.MayCreate {
		out.Missing = true
		return out, nil
	}
	s, err := open(ctx)
	if err != nil {
		return nil, err
	}
	log := s.Log.WithField("step", "dashboard")
	var d *dashboardIssue
	if len(all) > 0 {
		d = issueFacts(all[0], bot)
		out.Number = d.Number
		if !d.Open {
			got, err := sync.Issues.GetIssue(ctx, owner, name, d.Number)
			if err != nil {
				return nil, fmt.Errorf("dashboard #%d: %w", d.Number, err)
			}
			d = issueFacts(got, bot)
		}
		if out.Duplicates, err = closeDuplicates(ctx, sync.Issues, owner, name, all[1:]); err != nil {
			return out, err
		}
	} else if s.DeploymentHead.IsZero() {
		out.Missing = true // an empty repository: no configuration to read yet, nothing to show
		return out, nil
	}
	enabled := s.Config.Dashboard.Enabled
	var changedDone, changedSince bool
	changed := func() bool {
		if !changedDone {
			var err error
			if changedSince, err = configChangedSince(ctx, s, d.ClosedAt); err != nil {
				log.WithError(err).Warn("dashboard: configuration history not read; the dashboard stays closed")
			}
			changedDone = true
		}
		return changedSince
	}
	if enabled && d != nil && !d.Open && !d.ClosedByBot && !changed() {
		out.StaysClosed = true // nothing to gather for a dashboard that stays closed
		return out, nil
	}
	var body string
	if enabled {
		facts, err := sync.Facts(ctx, s)
		if err != nil {
			return out, err
		}
		if d == nil && facts.Empty() {
			out.Missing = true // nothing of porchbot's here yet: no dashboard to open
			return out, nil
		}
		body = Body(*facts)
	}
	interval := sync.Interval
	if interval <= 0 {
		interval = Interval
	}
	switch decideDashboard(enabled, sync.MayCreate, d, changed, body, now(), interval) {
	case stepNone:
		out.Unchanged, out.Missing = d != nil, d == nil
	case stepStayClosed:
		out.StaysClosed = true
	case stepWait:
		out.RetryAt = d.UpdatedAt.Add(interval)
	case stepClose:
		_, err = sync.Issues.EditIssue(ctx, owner, name, d.Number, hub.IssueWrite{State: "closed",
			StateReason: "not_planned"})
		out.Closed = err == nil
	case stepReopen:
		_, err = sync.Issues.EditIssue(ctx, owner, name, d.Number, hub.IssueWrite{State: "open", Body: body})
		out.Reopened = err == nil
	case stepEdit:
		_, err = sync.Issues.EditIssue(ctx, owner, name, d.Number, hub.IssueWrite{Body: body})
		out.Edited = err == nil
	case stepCreate:
		err = createDashboard(ctx, sync.Issues, s, bot, body, out)
	}
	if err != nil {
		return out, fmt.Errorf("dashboard of %s: %w", repo.FullName(), err)
	}
	log.WithFields(logrus.Fields{"number": out.Number, "created": out.Created, "edited": out.Edited, "reopened": out.Reopened,
		"closed": out.Closed, "stays_closed": out.StaysClosed, "retry_at": out.RetryAt, "duplicates": out.Duplicates}).Info("dashboard synced")
	return out, nil
}

// createDashboard opens the dashboard, then lists again: when another
// replica's dashboard has a lower number, this one is closed as its
// duplicate (the claim: the lowest number wins).
func createDashboard(ctx context.Context, issues Issues, s *core.Session, bot, body string, out *Outcome) error {
	owner, name := s.Repo.Owner, s.Repo.Name
	is, err := issues.CreateIssue(ctx, owner, name, hub.IssueWrite{Title: Title, Body: body,
		Labels: []string{Label}})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	out.Number, out.Created = is.Number, true
	all, err := listDashboards(ctx, issues, owner, name, bot)
	if err != nil {
		return err
	}
	if len(all) > 0 && all[0].Number < is.Number {
		out.Racey, out.Created, out.Number = true, false, all[0].Number
		dups, err := closeDuplicates(ctx, issues, owner, name, []hub.Issue{is})
		out.Duplicates = append(out.Duplicates, dups...)
		return err
	}
	return nil
}

// dashboardListOptions list the dashboard label's issues, open or closed,
// lowest number first: one address for every reader (open_pulls.go).
func ListOptions() hub.IssueQuery {
	return hub.IssueQuery{State: "all", Labels: []string{Label},
		Sort: "created", Direction: "asc", Page: hub.Page{PerPage: ListMax}}
}

// listDashboards lists porchbot's dashboards, lowest number first.
func listDashboards(ctx context.Context, issues Issues, owner, repo, bot string) ([]hub.Issue, error) {
	list, _, err := issues.ListIssues(ctx, owner, repo, ListOptions())
	if err != nil {
		return nil, fmt.Errorf("list dashboards of %s/%s: %w", owner, repo, err)
	}
	var out []hub.Issue
	for _, is := range list {
		if !is.IsPull && strings.EqualFold(is.User.Login, bot) && IsBody(is.Body) {
			out = append(out, is)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// closeDuplicates closes the open dashboards among dups.
func closeDuplicates(ctx context.Context, issues Issues, owner, repo string, dups []hub.Issue) ([]int, error) {
	var closed []int
	for _, is := range dups {
		if is.State != "open" {
			continue
		}
		if _, err := issues.EditIssue(ctx, owner, repo, is.Number, hub.IssueWrite{State: "closed",
			StateReason: "not_planned"}); err != nil {
			return closed, fmt.Errorf("close duplicate dashboard #%d: %w", is.Number, err)
		}
		closed = append(closed, is.Number)
	}
	return closed, nil
}

// issueFacts reads what the decision needs of an issue.
func issueFacts(is hub.Issue, bot string) *dashboardIssue {
	d := &dashboardIssue{Number: is.Number, Open: is.State == "open", Body: is.Body,
		UpdatedAt: is.UpdatedAt, ClosedAt: is.ClosedAt}
	d.ClosedByBot = !d.Open && strings.EqualFold(is.ClosedBy.Login, bot)
	return d
}

// configChangedSince reports a commit of the deployment branch's
// first-parent history, committed at or after since (git dates have
// one-second resolution: a change in the second of the close counts), that
// changed the configuration file (git only; at most configChangeWalk
// commits).
func configChangedSince(ctx context.Context, s *core.Session, since time.Time) (bool, error) {
	if s.DeploymentHead.IsZero() {
		return false, nil
	}
	changed := false
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(s.DeploymentHead)
		if err != nil {
			return fmt.Errorf("commit %s: %w", s.DeploymentHead, err)
		}
		for range configChangeWalk {
			if err := ctx.Err(); err != nil {
				return err
			}
			if c.Committer.When.Before(since.Truncate(time.Second)) || c.NumParents() == 0 {
				return nil
			}
			parent, err := repo.CommitObject(c.ParentHashes[0])
			if err != nil {
				return fmt.Errorf("parent of %s: %w", c.Hash, err)
			}
			a, err := configBlob(c)
			if err != nil {
				return err
			}
			b, err := configBlob(parent)
			if err != nil {
				return err
			}
			if a != b {
				changed = true
				return nil
			}
			c = parent
		}
		return nil
	})
	return changed, err
}

// configBlob is the configuration file's blob at a commit (zero: none).
func configBlob(c *object.Commit) (plumbing.Hash, error) {
	f, err := c.File(config.Path)
	if errors.Is(err, object.ErrFileNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s at %s: %w", config.Path, c.Hash, err)
	}
	return f.Hash, nil
}
