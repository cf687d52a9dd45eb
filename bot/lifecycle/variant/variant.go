package variant

// Variants (SPEC §7): the `variants:` entries of the repository holding an
// upstream package fan it out to target repositories. internal/variants
// plans (a pure function of the entries and the targets' facts); this file
// and its siblings gather the facts (variant_facts.go) and carry the
// actions out as pull requests in the targets: a clone draft and its
// proposal (variant_clone.go), an update pull request on the path of #9
// with the mutations applied again after the merge (variant_update.go), a
// deletion or an orphaning proposal (variant_remove.go). Nothing is kept
// between runs: ownership is the downstream Kptfile's annotation, what an
// open pull request brings is read from its head, so a reconcile run by a
// publish, a config push, the resync or any replica plans the same and
// converges.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/variants"
)

// Metrics receives each reconcile's count of target packages by
// state (internal/metrics: variant_targets{state}).
type Metrics interface {
	Targets(upstream string, byState map[string]int)
}

// Controller carries variants out for upstream repositories.
type Controller struct {
	// Updates is the update fan-out: its API, render options, pacing and
	// release notes serve the variants' pull requests too.
	Updates *updates.Fanout
	// Open opens a repository of the upstream's installation (its name,
	// installation and default branch known from the installation's list).
	Open func(ctx context.Context, repo core.Repo) (*core.Session, error)
	// Repos lists the repositories of a session's installation, with
	// their topics (nil: s.Hub).
	Repos func(s *core.Session) updates.VariantRepoLister
	// Finder finds the repositories whose packages track the upstream's
	// packages (the App's registry): targets removed from an entry, or
	// whose entry is gone, are found there. nil: only the targets the
	// entries name are looked at.
	Finder  updates.DownstreamFinder
	Metrics Metrics
	// Flows applies the rule of content crossing repositories
	// (internal/flow) to every clone, update and adoption (nil: caches of
	// its own per check).
	Flows *flow.Checker
}

// Result is one planned action and what carrying it out did.
type Result struct {
	Action variants.Action
	// PullRequest is the pull request that carries it (0: none).
	PullRequest int
	// Tracked is the upstream revision the downstream package tracks now
	// (0: none, or not known).
	Tracked int
	Err     error
	// Hidden: the target may not be named in the upstream's threads (not
	// every reader of the upstream can read it, and no entry names it).
	Hidden bool
}

// Report is one reconcile of an upstream repository.
type Report struct {
	Upstream string
	Results  []Result
}

// State is the state of result r as `/porch variants` shows it.
func (r Result) State() string {
	a := r.Action
	switch {
	case r.Err != nil:
		return string(variants.Failed) + ": " + r.Err.Error()
	case a.State == variants.Failed || a.State == variants.NotInstalled:
		return string(variants.Failed) + ": " + a.Reason
	case a.Kind != variants.Report && r.PullRequest != 0:
		return string(variants.PROpen)
	case a.Kind != variants.Report:
		return string(variants.Planned) + ": " + string(a.Kind)
	case a.State == variants.Waiting:
		return string(variants.Waiting)
	case a.State == variants.NotOwned, a.State == variants.HeldByRollout:
		return string(a.State) + ": " + a.Reason
	}
	return string(a.State)
}

// metricState is r's state label.
func (r Result) metricState() string {
	switch {
	case r.Err != nil:
		return string(variants.Failed)
	case r.Action.Kind != variants.Report && r.PullRequest != 0:
		return string(variants.PROpen)
	}
	return string(r.Action.State)
}

// Reconcile plans the variants of up's repository and carries the actions
// out. published are the revisions a publish just made (their commits and
// releases are known; nil from a config push or the resync). A target's
// failure is reported in its result and the others go on; the error joins
// the failures that were not the target's own (a bug, GitHub down).
func (c *Controller) Reconcile(ctx context.Context, up *core.Session, published []publish.PublishedRevision) (*Report, error) {
	return c.run(ctx, up, published, true)
}

// Status plans without carrying anything out: `/porch variants`.
func (c *Controller) Status(ctx context.Context, up *core.Session) (*Report, error) {
	return c.run(ctx, up, nil, false)
}

func (c *Controller) run(ctx context.Context, up *core.Session, published []publish.PublishedRevision, act bool) (*Report, error) {
	rep := &Report{Upstream: up.Repo.FullName()}
	if c == nil || c.Open == nil || c.Updates == nil {
		return rep, nil
	}
	log := up.Log.WithField("step", "variants")
	facts, err := c.prepare(ctx, up, published)
	if err != nil {
		return rep, fmt.Errorf("variants of %s: %w", up.Repo.FullName(), err)
	}
	var errs []error
	// One target at a time: its facts, its plan (a target's actions depend
	// on its own facts only), its actions.
	for _, vt := range facts.todo {
		if err := ctx.Err(); err != nil {
			return rep, errors.Join(append(errs, err)...)
		}
		t, terr := c.targetFacts(ctx, up, facts, vt)
		if t == nil && terr == nil {
			continue // holds nothing this upstream owns
		}
		for _, a := range variants.Plan(facts.src, []variants.Target{*t}) {
			if !strings.EqualFold(a.Target, vt.name) {
				continue
			}
			if terr != nil && a.State == variants.NotInstalled {
				a.State, a.Reason = variants.Failed, terr.Error()
			}
			r := Result{Action: a, PullRequest: a.PullRequest, Tracked: t.Packages[a.Package].Revision, Hidden: facts.hidden(up, vt)}
			if a.Kind != variants.Report && facts.session != nil && !a.Refresh {
				r.Err = declined(ctx, facts.session, facts, a)
			}
			if carriesContent(a.Kind) && r.Err == nil {
				r.Err = c.variantFlow(ctx, up, facts, vt, a, act)
				if _, refused := updates.FlowRefusal(r.Err); r.Err != nil && act {
					log.WithError(r.Err).WithFields(logrus.Fields{"target": a.Target, "package": a.Package, "refused": refused}).
						Warn("variant action not carried out: the flow rule")
				}
			}
			if !act && r.Err == nil {
				if why, held := c.heldNow(ctx, up, facts, a); held {
					r.Action.Kind, r.Action.State, r.Action.Reason = variants.Report, variants.HeldByRollout, why
				}
			}
			if act && a.Kind != variants.Report && r.Err == nil {
				r.PullRequest, r.Err = c.carryOut(ctx, up, facts, a)
				var held heldByRollout
				switch {
				case errors.Is(r.Err, errVariantWaiting):
					r.Err, r.Action.Kind, r.Action.State, r.Action.Reason = nil, variants.Report, variants.Waiting, r.Err.Error()
				case errors.As(r.Err, &held):
					r.Err, r.Action.Kind, r.Action.State, r.Action.Reason = nil, variants.Report, variants.HeldByRollout, held.why
				}
				var re *core.RequestError
				if r.Err != nil && !errors.As(r.Err, &re) {
					errs = append(errs, fmt.Errorf("variant %s in %s: %w", a.Kind, a.Target, r.Err))
				}
				entry := log.WithFields(logrus.Fields{"target": a.Target, "package": a.Package, "action": a.Kind,
					"revision": a.Revision, "pull_request": r.PullRequest})
				if r.Err != nil {
					entry.WithError(r.Err).Warn("variant action failed")
				} else {
					entry.Info("variant action carried out")
				}
			}
			rep.Results = append(rep.Results, r)
		}
		facts.session, facts.pulls = nil, nil
	}
	if act && c.Metrics != nil {
		by := map[string]int{}
		for _, r := range rep.Results {
			by[r.metricState()]++
		}
		c.Metrics.Targets(up.Repo.FullName(), by)
	}
	return rep, errors.Join(errs...)
}

// targetFacts are vt's facts: nil, nil for a repository looked at only
// for owned packages that holds none; a target not installed (or that
// could not be read: the error) otherwise.
func (c *Controller) targetFacts(ctx context.Context, up *core.Session, f *variantFacts, vt variantTarget) (*variants.Target, error) {
	if vt.repo == nil || vt.err != nil {
		return &variants.Target{Repo: vt.name}, vt.err
	}
	t, err := c.target(ctx, up, f, *vt.repo, vt.onlyOwned)
	if err != nil {
		return &variants.Target{Repo: vt.name}, err
	}
	return t, nil
}

// carryOut does one action in its target, paced as an update is.
func (c *Controller) carryOut(ctx context.Context, up *core.Session, facts *variantFacts, a variants.Action) (int, error) {
	ds := facts.session
	if ds == nil {
		return 0, fmt.Errorf("no session of %s", a.Target)
	}
	if c.Updates.Pacer != nil {
		if err := c.Updates.Pacer.Wait(ctx, updates.UpdateContentCalls); err != nil {
			return 0, fmt.Errorf("waiting for GitHub's hourly budget: %w", err)
		}
	}
	var v config.Variant
	if a.Variant >= 0 {
		v = up.Config.Variants[a.Variant]
	}
	switch a.Kind {
	case variants.Clone:
		return c.clone(ctx, up, ds, facts, a, v)
	case variants.Update, variants.Adopt:
		return c.update(ctx, up, ds, facts, a, v)
	case variants.Delete:
		return c.delete(ctx, ds, a)
	case variants.Orphan:
		return c.orphan(ctx, ds, a)
	}
	return 0, nil
}

// mutation is entry v's mutation of the downstream in ds, its injector
// files read at ds's deployment head (a file that is not there injects
// nothing: a required injection then fails, naming the files).
func (c *Controller) mutation(ctx context.Context, up, ds *core.Session, v config.Variant) (variants.Mutation, error) {
	inj := map[string][]byte{}
	for _, p := range v.Injectors {
		data, ok, err := ds.ReadFile(ctx, ds.DeploymentHead, strings.TrimPrefix(p, "/"))
		if err != nil {
			return variants.Mutation{}, fmt.Errorf("injector %s: %w", p, err)
		}
		if ok {
			inj[p] = data
		}
	}
	m, err := variants.MutationFor(up.Repo.FullName(), v, config.Repository{Owner: ds.Repo.Owner, Name: ds.Repo.Name}, inj)
	if err != nil {
		return m, core.RequestErrorf("%v", err)
	}
	return m, nil
}

// variantNote is the part of a variant pull request's body that says
// which variant and upstream revision made it and what the mutations do.
func variantNote(up *core.Session, a variants.Action, v config.Variant, m variants.Mutation, files map[string][]byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Variant\n\nMade by the variant of %s in %s (`variants[%d]` of %s), upstream revision %s, for %s.\n\n",
		mdquote.Code(v.Upstream.Package), up.Repo.FullName(), a.Variant, mdquote.Code(config.Path),
		mdquote.Code(fmt.Sprintf("%s/v%d", v.Upstream.Package, a.Revision)), a.Target)
	b.WriteString("What the variant's mutations change:\n\n")
	for _, l := range variants.Describe(m, files) {
		b.WriteString("- " + l + "\n")
	}
	fmt.Fprintf(&b, "\nThe variant applies them again on every update, so they never conflict with themselves. "+
		"Edit the entry in %s to change them; `/porch variants` there shows every target.\n", up.Repo.FullName())
	return b.String()
}
