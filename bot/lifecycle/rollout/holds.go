package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/rollout"
)

// holdsTTL bounds how long Holds answers from one plan of a rollout.
const holdsTTL = time.Minute

// heldPlan is what Holds needs of a plan: its revision and state, and the
// downstreams of the waves not open yet (key → wave).
type heldPlan struct {
	head     plumbing.Hash // the record's head the plan read
	revision int
	state    string
	waiting  map[string]string
	until    time.Time
}

// holdsCache keeps a recent plan per rollout, so that a resync asking of
// every downstream package plans each rollout once, not once a package.
// A plan is kept while the record's head is the one it read (any step,
// pause or resume moves it) and for holdsTTL at most.
type holdsCache struct{ m sync.Map }

// Holds says whether the rollout of up's package holds package pkg of the
// downstream repository repo back from up's revision, and why: its wave
// is not open yet, or the rollout is paused or stopped. The update paths
// nobody asked for (the resync's lagging updates, waiting updates opened
// when a slot frees, a variant's updates) ask it (updates.Fanout.Hold);
// an offer of the rollout's own plan, and a downstream's own /porch
// upgrade, do not. A plan that cannot be made holds.
func (c *Controller) Holds(ctx context.Context, up updates.UpstreamRevision, repo, pkg string) (string, bool) {
	s := up.Session
	r, ok := s.Config.RolloutOf(up.Package)
	if !ok {
		return "", false
	}
	now := c.now()
	head, err := s.ResolveRef(ctx, "refs/heads/"+Branch)
	if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
		head, err = plumbing.ZeroHash, nil
	}
	key := strings.ToLower(s.Repo.FullName()) + "\x00" + up.Package
	var hp heldPlan
	if v, ok := c.holds.m.Load(key); ok && err == nil {
		hp = v.(heldPlan)
	}
	if hp.until.IsZero() || hp.head != head || hp.revision != up.Revision || !now.Before(hp.until) {
		f, _, plan, err := c.planned(ctx, s, up.Package, r, now)
		if err != nil {
			return fmt.Sprintf("the rollout of %s could not be planned: %v", up.Package, err), true
		}
		hp = heldPlan{head: head, revision: f.revision, state: plan.State, waiting: map[string]string{}, until: now.Add(holdsTTL)}
		for i, wave := range rollout.Assign(f.spec, f.ds) {
			if plan.Waves[i].State != rollout.WaveWaiting {
				continue
			}
			for _, d := range wave {
				hp.waiting[d.Key()] = plan.Waves[i].Name
			}
		}
		c.holds.m.Store(key, hp)
	}
	switch {
	case up.Revision < hp.revision:
		return "", false // an older revision than the rollout's
	case hp.state == rollout.Paused, hp.state == rollout.Stopped:
		return fmt.Sprintf("the rollout of %s is %s", up.Package, hp.state), true
	}
	if wave, ok := hp.waiting[rollout.Key(repo, pkg)]; ok {
		return fmt.Sprintf("it waits for wave %s of the rollout of %s", wave, up.Package), true
	}
	return "", false
}
