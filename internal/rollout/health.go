package rollout

import "time"

// Acknowledged is the health of a downstream whose only failures were
// reported before the last resume: an approver chose to go on.
const Acknowledged = "acknowledged"

// Health is what a downstream's deployment reports of a revision.
type Health struct {
	// State is Success, Failure, Pending, Acknowledged or "" (nothing
	// reported on the revision).
	State string
	// Since: for Success, when the last context turned to success; for
	// Acknowledged, the resume; for Failure, when the failure was reported.
	Since time.Time
	// Context and Failed are the failing report (State Failure).
	Context string
	Failed  Report
}

// Met says whether the health lets the downstream's wave go on.
func (h Health) Met() bool { return h.State == Success || h.State == Acknowledged }

// HealthOf is downstream p's health at revision, over the latest report of
// each context on it:
//   - Failure when one is a failure no resume acknowledged (the earliest
//     such failure is the one named);
//   - Pending when one is pending;
//   - Success when one is a success and the others are successes or
//     acknowledged failures;
//   - Acknowledged when all are acknowledged failures.
//
// ack is the last resume's time: a downstream met by acknowledgement is
// met from then.
func (p *Progress) HealthOf(revision int, ack time.Time) Health {
	if p == nil {
		return Health{}
	}
	var fail *Health
	var since time.Time
	reported, pending, succeeded, acked := false, false, false, false
	for c, r := range p.Reports {
		if r.Revision != revision {
			continue
		}
		reported = true
		switch {
		case r.State == Failure && !r.Acked:
			if fail == nil || r.At.Before(fail.Since) || r.At.Equal(fail.Since) && c < fail.Context {
				fail = &Health{State: Failure, Since: r.At, Context: c, Failed: r}
			}
		case r.State == Failure:
			acked = true // by the resume
		case r.State == Success:
			succeeded = true
			if r.Since.After(since) {
				since = r.Since
			}
		default:
			pending = true
		}
	}
	switch {
	case fail != nil:
		return *fail
	case !reported:
		return Health{}
	case pending:
		return Health{State: Pending}
	case succeeded && acked:
		return Health{State: Success, Since: later(since, ack)}
	case succeeded:
		return Health{State: Success, Since: since}
	default:
		return Health{State: Acknowledged, Since: ack}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
