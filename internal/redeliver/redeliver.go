// Package redeliver repairs lost webhooks with GitHub's own record of
// them: GitHub keeps every delivery it made to the App's webhook (the
// receiver's answer included) and redelivers one on request, for three
// days. Once per resync pass the Redeliverer lists the deliveries made
// since its last pass and asks GitHub to redeliver each failed one whose
// GUID never succeeded: the same payload, with the same X-GitHub-Delivery
// GUID, signed again, through the ingress like any webhook.
//
// Cost: it pages the list newest first and stops at the first delivery it
// saw before (or older than its horizon), so a pass costs one call per
// hundred new deliveries plus one per redelivery, whatever the number of
// repositories: a quiet pass is one call. The calls are made with the
// App's JWT (GET /app/hook/deliveries, POST .../attempts), never with an
// installation token, so they are counted against the App's own rate
// limit and leave every installation's 5,000 calls an hour to its work.
//
// State is bounded: the id of the newest delivery seen, and the GUIDs of
// recent failures (at most MaxFailures, none older than the horizon).
//
// Several replicas may run it at once. Each counts the redeliveries
// GitHub lists, whoever asked for them, so MaxAttempts bounds them all;
// two replicas may still both redeliver one failure in the same moment,
// which is harmless: the ingress drops a GUID it accepted already
// (bot/ingress/dedupe.go) and commands are claimed.
package redeliver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
)

// Deliveries is what the Redeliverer needs of GitHub: the App's webhook
// deliveries, listed and redelivered. go-github's AppsService (of a
// client authenticated as the App) is one.
type Deliveries interface {
	ListHookDeliveries(ctx context.Context, opts *github.ListCursorOptions) ([]*github.HookDelivery, *github.Response, error)
	RedeliverHookDelivery(ctx context.Context, deliveryID int64) (*github.HookDelivery, *github.Response, error)
}

// Defaults of Options.
const (
	// DefaultHorizon is how far back a pass looks (GitHub redelivers
	// three days back at most).
	DefaultHorizon = 3 * time.Hour
	// DefaultMaxAttempts bounds the redeliveries of one GUID.
	DefaultMaxAttempts = 3
	// DefaultMaxPerPass bounds the redeliveries one pass requests.
	DefaultMaxPerPass = 100
	// DefaultMaxFailures bounds the failures remembered.
	DefaultMaxFailures = 10000
	// DefaultMaxPages bounds the pages of 100 one pass lists.
	DefaultMaxPages = 50
)

// Options tune a Redeliverer; zero values take the defaults.
type Options struct {
	Horizon     time.Duration
	MaxAttempts int
	MaxPerPass  int
	MaxFailures int
	MaxPages    int
	// Counter counts deliveries by outcome (redelivered, failed,
	// exhausted, budget), e.g. metrics.WebhookRedeliveries; nil: none.
	Counter *prometheus.CounterVec
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Report is what one pass did, for a log line.
type Report struct {
	Listed      int            // deliveries new since the last pass
	Pages       int            // list calls made
	Truncated   bool           // MaxPages reached: older new deliveries were not read
	Redelivered []string       // GUIDs redelivery was requested for
	Repaired    int            // failures of earlier passes now delivered
	Failed      int            // redelivery requests GitHub refused
	Skipped     map[string]int // failed GUIDs left alone, by reason
	Remembered  int            // failures remembered after the pass
}

// Redeliverer redelivers the App's failed webhook deliveries. It is safe
// for concurrent use; passes run one at a time.
type Redeliverer struct {
	api  Deliveries
	log  logrus.FieldLogger
	opts Options

	mu       sync.Mutex
	newest   int64 // id of the newest delivery seen
	failures map[string]Failure
}

// New returns a Redeliverer over api.
func New(api Deliveries, log logrus.FieldLogger, opts Options) *Redeliverer {
	if opts.Horizon <= 0 {
		opts.Horizon = DefaultHorizon
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.MaxPerPass <= 0 {
		opts.MaxPerPass = DefaultMaxPerPass
	}
	if opts.MaxFailures <= 0 {
		opts.MaxFailures = DefaultMaxFailures
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Redeliverer{api: api, log: log, opts: opts, failures: map[string]Failure{}}
}

// Pass lists the deliveries made since the last pass and redelivers the
// failed ones as PlanPass decides. A listing error ends the pass with
// nothing changed; a refused redelivery is counted and left due for the
// next pass.
func (r *Redeliverer) Pass(ctx context.Context) (Report, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := Report{Skipped: map[string]int{}}
	listed, err := r.listNew(ctx, &rep)
	if err != nil {
		return rep, err
	}
	r.forgetOld()
	plan := PlanPass(listed, r.failures, Limits{MaxAttempts: r.opts.MaxAttempts, MaxPerPass: r.opts.MaxPerPass})
	rep.Repaired = len(plan.Delivered)
	for reason, n := range plan.Skipped {
		rep.Skipped[reason] = n
		r.count(reason, n)
	}
	for _, d := range plan.Redeliver {
		if err := r.redeliver(ctx, d); err != nil {
			if ctx.Err() != nil {
				return rep, fmt.Errorf("redeliver %s: %w", d.GetGUID(), err)
			}
			rep.Failed++
			r.count("failed", 1)
			f := plan.Failures[d.GetGUID()]
			f.Due = true
			plan.Failures[d.GetGUID()] = f
			r.log.WithError(err).WithField("delivery", d.GetGUID()).Warn("redeliver a failed webhook delivery")
			continue
		}
		rep.Redelivered = append(rep.Redelivered, d.GetGUID())
		r.count("redelivered", 1)
	}
	r.failures = plan.Failures
	if len(listed) > 0 {
		r.newest = max(r.newest, listed[0].GetID())
	}
	r.forgetOld()
	rep.Remembered = len(r.failures)
	return rep, nil
}

// listNew pages the deliveries newest first down to the first one seen
// before or older than the horizon.
func (r *Redeliverer) listNew(ctx context.Context, rep *Report) ([]*github.HookDelivery, error) {
	since := r.opts.Now().Add(-r.opts.Horizon)
	opts := &github.ListCursorOptions{PerPage: 100}
	var out []*github.HookDelivery
	for rep.Pages < r.opts.MaxPages {
		page, resp, err := r.api.ListHookDeliveries(ctx, opts)
		rep.Pages++
		if err != nil {
			return nil, fmt.Errorf("list the App's webhook deliveries: %w", err)
		}
		for _, d := range page {
			if d.GetID() <= r.newest || d.GetDeliveredAt().Time.Before(since) {
				rep.Listed = len(out)
				return out, nil
			}
			out = append(out, d)
		}
		if resp == nil || resp.Cursor == "" {
			rep.Listed = len(out)
			return out, nil
		}
		opts.Cursor = resp.Cursor
	}
	rep.Listed, rep.Truncated = len(out), true
	return out, nil
}

// redeliver asks GitHub to send d again; it answers 202, which go-github
// reports as an AcceptedError.
func (r *Redeliverer) redeliver(ctx context.Context, d *github.HookDelivery) error {
	_, _, err := r.api.RedeliverHookDelivery(ctx, d.GetID())
	var accepted *github.AcceptedError
	if err != nil && !errors.As(err, &accepted) {
		return err
	}
	r.log.WithFields(logrus.Fields{"delivery": d.GetGUID(), "event": d.GetEvent(), "action": d.GetAction(),
		"status": d.GetStatus()}).Info("redelivered a failed webhook delivery")
	return nil
}

// forgetOld drops failures past the horizon, then the oldest past
// MaxFailures.
func (r *Redeliverer) forgetOld() {
	since := r.opts.Now().Add(-r.opts.Horizon)
	for g, f := range r.failures {
		if f.Latest.GetDeliveredAt().Time.Before(since) {
			delete(r.failures, g)
		}
	}
	excess := len(r.failures) - r.opts.MaxFailures
	if excess <= 0 {
		return
	}
	guids := make([]string, 0, len(r.failures))
	for g := range r.failures {
		guids = append(guids, g)
	}
	slices.SortFunc(guids, func(a, b string) int {
		return cmp.Compare(r.failures[a].Latest.GetID(), r.failures[b].Latest.GetID())
	})
	for _, g := range guids[:excess] {
		delete(r.failures, g)
	}
}

func (r *Redeliverer) count(outcome string, n int) {
	if r.opts.Counter != nil && n > 0 {
		r.opts.Counter.WithLabelValues(outcome).Add(float64(n))
	}
}
