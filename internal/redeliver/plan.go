package redeliver

import (
	"cmp"
	"slices"

	"github.com/google/go-github/v60/github"
)

// Skip reasons of a failed delivery left alone (Report.Skipped).
const (
	SkipExhausted = "exhausted" // redelivered MaxAttempts times already
	SkipBudget    = "budget"    // past the pass's MaxPerPass: the next pass takes it
)

// Failure is what is remembered of a GUID none of whose deliveries
// succeeded yet.
type Failure struct {
	// Latest is its newest failed delivery, the one to redeliver.
	Latest *github.HookDelivery
	// Attempts are its redeliveries GitHub listed as failed, whoever
	// asked for them (another replica's count too).
	Attempts int
	// Due: it is still to be redelivered (a pass's budget left it).
	Due bool
}

// Limits bound what is redelivered.
type Limits struct {
	MaxAttempts int // redeliveries of one GUID
	MaxPerPass  int // redeliveries requested in one pass
}

// Plan is what one pass does with the deliveries it listed.
type Plan struct {
	// Redeliver are the deliveries to send again, oldest first: of each
	// GUID with no success, its newest failed delivery.
	Redeliver []*github.HookDelivery
	// Delivered are the GUIDs of the failures known before that a listed
	// delivery repaired (succeeded).
	Delivered []string
	// Failures are the GUIDs still without a success after this pass.
	Failures map[string]Failure
	// Skipped counts failed GUIDs left alone, by reason.
	Skipped map[string]int
}

// delivered is GitHub's "OK": the receiver answered 2xx. A delivery it
// dropped, one that timed out (status_code 0) and any other answer failed.
func delivered(d *github.HookDelivery) bool {
	return d.GetStatusCode() >= 200 && d.GetStatusCode() < 300
}

// PlanPass decides which deliveries to redeliver. listed are the
// deliveries new since the last pass, newest first as GitHub lists them;
// known are the failures remembered from earlier passes. A GUID is
// redelivered when none of its deliveries succeeded, it failed anew in
// listed (or a budget left it due), and fewer than MaxAttempts of its
// redeliveries failed; at most MaxPerPass are, the oldest first.
func PlanPass(listed []*github.HookDelivery, known map[string]Failure, lim Limits) Plan {
	p := Plan{Failures: make(map[string]Failure, len(known)), Skipped: map[string]int{}}
	due := map[string]bool{}
	for g, f := range known {
		p.Failures[g] = f
		if f.Due {
			due[g] = true
		}
	}
	succeeded := map[string]bool{}
	for i := len(listed) - 1; i >= 0; i-- { // oldest first
		d := listed[i]
		g := d.GetGUID()
		switch {
		case g == "":
		case delivered(d):
			succeeded[g] = true
		default:
			f := p.Failures[g]
			if d.GetRedelivery() {
				f.Attempts++
			}
			f.Latest = d
			p.Failures[g] = f
			due[g] = true
		}
	}
	for g := range succeeded {
		if _, was := p.Failures[g]; was {
			if _, before := known[g]; before {
				p.Delivered = append(p.Delivered, g)
			}
			delete(p.Failures, g)
			delete(due, g)
		}
	}
	slices.Sort(p.Delivered)
	order := make([]string, 0, len(due))
	for g := range due {
		order = append(order, g)
	}
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Compare(p.Failures[a].Latest.GetID(), p.Failures[b].Latest.GetID())
	})
	for _, g := range order {
		f := p.Failures[g]
		f.Due = false
		switch {
		case f.Attempts >= lim.MaxAttempts:
			p.Skipped[SkipExhausted]++
		case len(p.Redeliver) >= lim.MaxPerPass:
			p.Skipped[SkipBudget]++
			f.Due = true
		default:
			p.Redeliver = append(p.Redeliver, f.Latest)
		}
		p.Failures[g] = f
	}
	return p
}
