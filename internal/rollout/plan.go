package rollout

import (
	"fmt"
	"time"
)

// Rollout states.
const (
	Idle    = "idle"    // nothing published, or no downstream
	Rolling = "rolling" // waves are being updated or soaking
	Paused  = "paused"  // an approver paused it
	Stopped = "stopped" // a wave failed: an approver resumes or skips it
	Done    = "done"    // every wave met the rule
)

// Wave states.
const (
	WaveWaiting = "waiting" // an earlier wave has not met the rule
	WaveRolling = "rolling" // updates proposed, the rule not met yet
	WaveSoaking = "soaking" // the rule met, the soak time running
	WaveDone    = "done"
	WaveSkipped = "skipped"
	WaveFailed  = "failed"
)

// Offer is an update pull request to propose: downstream Repo's Package to
// Revision (Refresh: it has one in progress for an older revision).
type Offer struct {
	Repo, Package string
	Revision      int
	Wave          string
	Refresh       bool
}

// Failing is a downstream whose deployment failed.
type Failing struct {
	Repo, Package, Context string
	Report                 Report
}

// WaveStatus is one wave's state in a plan.
type WaveStatus struct {
	Name  string
	State string
	// Counts of the wave's downstreams.
	Total, Merged, Healthy, InProgress, Excluded int
	// Met is when the wave met the rule; SoakUntil when its soak ends.
	Met, SoakUntil time.Time
	Skip           *Skip
	Failures       []Failing
	// Awaited names (Key) the first downstreams the wave waits for.
	Awaited []string
}

// maxAwaited bounds WaveStatus.Awaited.
const maxAwaited = 10

// Plan is Decide's answer.
type Plan struct {
	Package  string
	Revision int
	State    string
	// Reason says, in words, why the rollout is where it is.
	Reason string
	Waves  []WaveStatus
	// Downstreams are each downstream's part, in the waves' order (the
	// catalog counts those its viewer may read).
	Downstreams []Outcome
	Offers      []Offer
	// Wake is when the plan changes by time alone (a soak ends; zero:
	// only a new fact changes it).
	Wake time.Time
	// Record is the record with what this pass saw noted (merge times,
	// downstreams gone forgotten); RecordChanged says whether it differs.
	Record        Record
	RecordChanged bool
}

// Decide plans the rollout of revision (the upstream package's latest
// published) to ds under spec, from what rec holds, at now. It opens waves
// in order: a wave's downstreams get their update when every earlier wave
// met the rule (or was skipped) and its soak ended; within a wave, at most
// MaxInProgress updates are in progress at once. A failure reported on a
// revision in an opened wave stops the rollout until a resume; a pause
// stops every proposal. A downstream holding an older revision than its
// offer (an update in progress) is refreshed to revision once its wave is
// open for it; waves not open for it yet are left as they are, so a newer
// revision goes wave by wave, soaks included.
func Decide(spec Spec, revision int, ds []Downstream, rec Record, now time.Time) Plan {
	rec = clone(rec)
	p := Plan{Package: spec.Package, Revision: revision, State: Rolling}
	byWave := Assign(spec, ds)
	waves := spec.waves()
	p.RecordChanged = rec.Note(ds, revision, now)
	var ack time.Time
	if rec.Resumed != nil {
		ack = rec.Resumed.At
	}
	open := true // the waves so far met the rule: this one is open
	for i, w := range waves {
		st := WaveStatus{Name: w.Name, State: WaveWaiting, Total: len(byWave[i])}
		var met time.Time
		inProgress := 0
		var pending []Downstream
		for _, d := range byWave[i] {
			pr := rec.Downstreams[d.Key()]
			merged := d.At >= revision
			h := pr.HealthOf(revision, ack)
			p.Downstreams = append(p.Downstreams, outcomeOf(d, w.Name, pr, merged, h, spec.RequireDeployment))
			switch {
			case pr != nil && pr.Excluded != "" && !merged:
				st.Excluded++
				continue
			case merged:
				st.Merged++
				if !spec.RequireDeployment {
					met = later(met, mergedAt(pr, revision))
					st.Healthy++
					continue
				}
				if h.Met() {
					st.Healthy++
					met = later(met, h.Since)
					continue
				}
			case pr != nil && pr.Offered > d.At:
				inProgress++
				if pr.Offered < revision {
					pending = append(pending, d)
				}
			default:
				pending = append(pending, d)
			}
			if h.State == Failure {
				st.Failures = append(st.Failures, Failing{Repo: d.Repo, Package: d.Package, Context: h.Context, Report: h.Failed})
			}
			if len(st.Awaited) < maxAwaited {
				st.Awaited = append(st.Awaited, d.Key())
			}
		}
		st.InProgress = inProgress
		if !open {
			p.Waves = append(p.Waves, st)
			continue
		}
		st.State = WaveRolling
		for _, d := range pending {
			pr := rec.Downstreams[d.Key()]
			refresh := pr != nil && pr.Offered > d.At
			if !refresh {
				if w.MaxInProgress > 0 && inProgress >= w.MaxInProgress {
					continue
				}
				inProgress++
			}
			p.Offers = append(p.Offers, Offer{Repo: d.Repo, Package: d.Package, Revision: revision, Wave: w.Name, Refresh: refresh})
		}
		skip, skipped := rec.skipped(w.Name, revision)
		switch {
		case len(st.Failures) > 0 && !skipped:
			st.State = WaveFailed
			f := st.Failures[0]
			p.State, p.Reason = Stopped, fmt.Sprintf("wave %s failed: %s %s: %s reported %s", w.Name, f.Repo, f.Package, f.Context, f.Report.State)
			open = false
		case skipped:
			st.State, st.Skip, st.Met = WaveSkipped, &skip, skip.At
		case st.Healthy == st.Total-st.Excluded:
			st.Met = met
			st.SoakUntil = met.Add(w.Soak)
			st.State = WaveDone
			if w.Soak > 0 && now.Before(st.SoakUntil) {
				st.State = WaveSoaking
				p.Wake = st.SoakUntil
				open = false
			}
		default:
			open = false
		}
		p.Waves = append(p.Waves, st)
	}
	if p.State != Stopped {
		p.State, p.Reason = progress(p.Waves)
	}
	if revision <= 0 || len(ds) == 0 {
		p.State, p.Reason, p.Offers = Idle, "nothing to roll out", nil
	}
	if rec.Paused != nil && p.State != Idle && p.State != Done {
		p.State, p.Reason = Paused, fmt.Sprintf("paused by %s", rec.Paused.By)
	}
	if p.State == Paused || p.State == Stopped {
		p.Offers, p.Wake = nil, time.Time{}
	}
	p.Record = rec
	return p
}

// progress is the state of a rollout that did not fail, and why.
func progress(waves []WaveStatus) (string, string) {
	for _, w := range waves {
		switch w.State {
		case WaveRolling:
			return Rolling, fmt.Sprintf("wave %s: %d of %d downstreams met the rule", w.Name, w.Healthy, w.Total-w.Excluded)
		case WaveSoaking:
			return Rolling, fmt.Sprintf("wave %s soaking until %s", w.Name, w.SoakUntil.UTC().Format(time.RFC3339))
		}
	}
	return Done, "every wave met the rule"
}

func mergedAt(p *Progress, revision int) time.Time {
	if p == nil || p.Merged == nil || p.Merged.Revision < revision {
		return time.Time{}
	}
	return p.Merged.At
}

// Note records, at now, the downstreams first seen holding revision (the
// time a wave without a deployment rule soaks from), forgets downstreams
// not in ds and skips of older revisions. It says whether r changed.
func (r *Record) Note(ds []Downstream, revision int, now time.Time) bool {
	changed := false
	keep := make(map[string]bool, len(ds))
	for _, d := range ds {
		key := d.Key()
		keep[key] = true
		if revision > 0 && d.At >= revision {
			if pr := r.Downstreams[key]; pr == nil || pr.Merged == nil || pr.Merged.Revision < revision {
				r.progress(key).Merged = &Merge{Revision: revision, At: now}
				changed = true
			}
		}
	}
	if len(r.Downstreams) > len(keep) || len(r.Skipped) > 0 {
		before := len(r.Downstreams) + len(r.Skipped)
		r.Prune(keep, revision)
		changed = changed || before != len(r.Downstreams)+len(r.Skipped)
	}
	return changed
}

// clone copies the parts of r that Decide changes.
func clone(r Record) Record {
	out := r
	out.Skipped = append([]Skip(nil), r.Skipped...)
	if r.Downstreams != nil {
		out.Downstreams = make(map[string]*Progress, len(r.Downstreams))
		for k, p := range r.Downstreams {
			c := *p
			out.Downstreams[k] = &c
		}
	}
	return out
}
