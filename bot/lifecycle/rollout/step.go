package rollout

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/rollout"
)

// Controller carries out the rollouts of upstream packages.
type Controller struct {
	// Finder finds a package's downstreams (the App's registry).
	Finder updates.DownstreamFinder
	// Fanout proposes each update the plan offers (update pull requests,
	// on the path of a publish's fan-out).
	Fanout *updates.Fanout
	// Topics lists the topics of the repositories of the upstream's
	// installation, by lower-case owner/name, holding those of repos (the
	// downstream repositories of that installation) where it can (nil:
	// waves selecting by topic select nothing).
	Topics func(ctx context.Context, s *core.Session, repos []string) map[string][]string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Wake asks for a Step of pkg in the repository of s at at, when a
	// soak ends (nil: the resync takes it).
	Wake func(s *core.Session, pkg string, at time.Time)
	// Variants reconciles the variants of the upstream repository s, when
	// an offer went to a package a variant owns: the variant carries the
	// update, with its mutations (nil: the resync does).
	Variants func(ctx context.Context, s *core.Session)
	// Changed, if set, is told of pkg's rollout in the repository of s
	// after a step or a pause that changed what its views show (state,
	// revision, wave counts, failures: changes.go), with the plan as it
	// stands: the App refreshes the upstream's dashboard and package
	// index. It is called outside the step's lock and must not step.
	Changed func(ctx context.Context, s *core.Session, pkg string, p *rollout.Plan)

	locks sync.Map // repo + package → *sync.Mutex: one step at a time
	// wants are the report contexts each upstream's rollouts want
	// (context_filter.go).
	wants contextFilter
	// holds are recent plans Holds answers from (holds.go).
	holds holdsCache
	seen  sync.Map // repo + package → what the views last showed (changes.go)
}

func (c *Controller) lock(s *core.Session, pkg string) func() {
	m, _ := c.locks.LoadOrStore(rolloutKey(s, pkg), &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// Has says whether pkg of s is rolled out in waves.
func Has(s *core.Session, pkg string) bool {
	_, ok := s.Config.RolloutOf(pkg)
	return ok
}

// Step plans pkg's rollout in its upstream repository s and carries the
// plan out: each offered update is proposed (an update pull request, or a
// refresh of the one open), the record notes what was proposed and seen,
// and a wake is asked for when a soak ends; Changed is told when the
// views of the rollout change. It returns the plan (nil when pkg has no
// rollout).
func (c *Controller) Step(ctx context.Context, s *core.Session, pkg string) (*rollout.Plan, error) {
	return c.run(ctx, s, pkg, false)
}

// Repair is Step after reading again the deployment reports of the
// downstreams its open waves wait for (repair.go): what a lost webhook
// left unsaid. The resync's step.
func (c *Controller) Repair(ctx context.Context, s *core.Session, pkg string) (*rollout.Plan, error) {
	return c.run(ctx, s, pkg, true)
}

// run is Step (repair: Repair), and Changed told afterwards.
func (c *Controller) run(ctx context.Context, s *core.Session, pkg string, repair bool) (*rollout.Plan, error) {
	r, ok := s.Config.RolloutOf(pkg)
	if !ok || c == nil {
		return nil, nil
	}
	plan, now, err := c.step(ctx, s, pkg, r, repair)
	c.noteChange(ctx, s, pkg, now)
	return plan, err
}

// step is Step under the rollout's lock. Besides the plan it carried out,
// it returns the plan as it stands afterwards (the record as pushed: the
// updates just proposed in progress), nil when the step failed.
func (c *Controller) step(ctx context.Context, s *core.Session, pkg string, r config.Rollout, repair bool) (*rollout.Plan, *rollout.Plan, error) {
	defer c.lock(s, pkg)()
	c.wants.learn(s.Repo.FullName(), s.Config, c.now())
	log := s.Log.WithFields(logrus.Fields{"package": pkg, "rollout": true})
	now := c.now()
	f, rec, plan, err := c.planned(ctx, s, pkg, r, now)
	if err != nil {
		return nil, nil, err
	}
	var observed []observation
	if repair && f.spec.RequireDeployment {
		if observed = c.reread(ctx, s, pkg, r, f, plan); len(observed) > 0 {
			for _, o := range observed {
				rec.Observe(o.key, o.context, o.report)
			}
			plan = rollout.Decide(f.spec, f.revision, f.ds, rec, now)
		}
	}
	type offered struct {
		key      string
		excluded string
	}
	var done []offered
	variantOwned := false
	if len(plan.Offers) > 0 && c.Fanout != nil {
		up, err := updates.NewUpstreamRevision(ctx, s, pkg, plan.Revision)
		if err != nil {
			return &plan, nil, fmt.Errorf("rollout of %s: %w", pkg, err)
		}
		installs := map[string]int64{}
		for _, o := range plan.Offers {
			installs[o.Repo] = f.installs[o.Repo]
		}
		up = c.Fanout.Prepare(ctx, up, installs)
		sessions := map[string]*core.Session{}
		openErrs := map[string]error{}
		for _, o := range plan.Offers {
			ds, seen := sessions[o.Repo]
			if !seen {
				ds, openErrs[o.Repo] = c.Fanout.Open(ctx, o.Repo)
				sessions[o.Repo] = ds
			}
			res := c.Fanout.Offer(ctx, up, o.Repo, ds, openErrs[o.Repo], o.Package)
			log.WithFields(logrus.Fields{"downstream": o.Repo, "downstream_package": o.Package, "wave": o.Wave, "revision": o.Revision, "state": res.State()}).Info("rollout: update proposed")
			switch st := res.State(); st {
			case updates.OwnedByVariant:
				// Offered through its variant (below), which the rollout
				// holds to the same waves (Holds).
				variantOwned = true
				done = append(done, offered{key: rollout.Key(o.Repo, o.Package)})
			case updates.NotOnboarded, updates.Refused, updates.Declined, updates.Held:
				done = append(done, offered{key: rollout.Key(o.Repo, o.Package), excluded: st})
			case "failed":
				// Not recorded: the next step offers it again.
			default:
				done = append(done, offered{key: rollout.Key(o.Repo, o.Package)})
			}
		}
	}
	stands := &plan
	if plan.RecordChanged || len(done) > 0 || len(observed) > 0 {
		what := fmt.Sprintf("v%d, %s", plan.Revision, plan.Reason)
		if len(done) > 0 {
			what = fmt.Sprintf("v%d proposed to %d downstream packages", plan.Revision, len(done))
		}
		rec, err := UpdateRecord(ctx, s, pkg, what, now, func(r *rollout.Record) bool {
			changed := r.Note(f.ds, plan.Revision, now)
			for _, o := range observed {
				changed = r.Observe(o.key, o.context, o.report) || changed
			}
			for _, o := range done {
				changed = r.Offer(o.key, plan.Revision, o.excluded) || changed
			}
			return changed
		})
		if err != nil {
			return &plan, nil, err
		}
		after := rollout.Decide(f.spec, f.revision, f.ds, rec, now)
		stands = &after
	}
	if variantOwned && c.Variants != nil {
		c.Variants(ctx, s)
	}
	if !plan.Wake.IsZero() && c.Wake != nil {
		c.Wake(s, pkg, plan.Wake)
	}
	log.WithFields(logrus.Fields{"revision": plan.Revision, "state": plan.State, "reason": plan.Reason, "offers": len(plan.Offers)}).Info("rollout planned")
	return &plan, stands, nil
}

// Plan is the plan of pkg's rollout as it stands, acting on nothing (the
// status of /porch rollout status and the dashboard).
func (c *Controller) Plan(ctx context.Context, s *core.Session, pkg string) (*rollout.Plan, error) {
	r, ok := s.Config.RolloutOf(pkg)
	if !ok {
		return nil, nil
	}
	_, _, plan, err := c.planned(ctx, s, pkg, r, c.now())
	if err != nil {
		return nil, err
	}
	return &plan, nil
}

// planned gathers the facts of pkg's rollout r, reads its record and plans
// it at now, acting on nothing.
func (c *Controller) planned(ctx context.Context, s *core.Session, pkg string, r config.Rollout, now time.Time) (facts, rollout.Record, rollout.Plan, error) {
	f, err := c.gather(ctx, s, pkg, r)
	if err != nil {
		return f, rollout.Record{}, rollout.Plan{}, fmt.Errorf("rollout of %s: %w", pkg, err)
	}
	rec, _, err := LoadRecord(ctx, s, pkg, now)
	if err != nil {
		return f, rec, rollout.Plan{}, err
	}
	return f, rec, rollout.Decide(f.spec, f.revision, f.ds, rec, now), nil
}
