package rollout

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// FuzzDecideConverges runs a fleet through rollouts: downstreams merge
// what is proposed to them when they like, report their deployments
// (sometimes a failure, which an approver resumes), revisions publish
// mid-rollout, time passes. Every plan must keep the rules (no offer past
// a wave that has not met the rule, within a wave's bound, none while
// paused or stopped), and the rollout must end done with every downstream
// at the latest revision.
func FuzzDecideConverges(f *testing.F) {
	for _, s := range []struct {
		seed      uint64
		n, wavesN uint8
	}{{1, 5, 3}, {2, 40, 5}, {3, 1, 1}, {4, 12, 3}, {5, 0, 2}, {6, 25, 4}, {7, 9, 2}} {
		f.Add(s.seed, s.n, s.wavesN)
	}
	f.Fuzz(func(t *testing.T, seed uint64, n, wavesN uint8) {
		r := rand.New(rand.NewPCG(seed, uint64(n)<<8|uint64(wavesN)))
		spec := randomSpec(r, int(wavesN%5)+1)
		ds := randomFleet(r, int(n%60))
		rec := Record{Package: spec.Package}
		now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
		revision, published := 1, 1
		var p Plan
		for step := 0; ; step++ {
			if step > 5000 {
				t.Fatalf("no convergence after %d steps: %s %s\n%s\n%+v", step, p.State, p.Reason, planText(p), rec.Resumed)
			}
			p = Decide(spec, revision, ds, rec, now)
			checkPlan(t, spec, ds, rec, p)
			if p.State == Done || p.State == Idle {
				if published < 3 && r.IntN(2) == 0 && len(ds) > 0 {
					revision++
					published++
					continue
				}
				break
			}
			rec = p.Record
			for _, o := range p.Offers {
				excluded := ""
				if r.IntN(50) == 0 {
					excluded = "not-onboarded"
				}
				rec.Offer(Key(o.Repo, o.Package), o.Revision, excluded)
			}
			switch {
			case p.State == Stopped || p.State == Paused:
				now = now.Add(time.Minute)
				rec.Resume("approver", now)
			case r.IntN(40) == 0 && step < 300:
				rec.Pause("approver", now)
			case r.IntN(30) == 0 && published < 3:
				revision++
				published++
			}
			now = now.Add(time.Duration(r.IntN(20)) * time.Minute)
			if !p.Wake.IsZero() && r.IntN(2) == 0 {
				now = p.Wake
			}
			for i := range ds {
				pr := rec.Downstreams[ds[i].Key()]
				if pr == nil {
					continue
				}
				if pr.Offered > ds[i].At && r.IntN(2) == 0 {
					ds[i].At = pr.Offered
				}
				if ds[i].At > 0 && r.IntN(2) == 0 {
					state := Success
					// The fleet misbehaves for a while, then settles.
					switch r.IntN(12) + min(step/300, 1)*12 {
					case 0:
						state = Failure
					case 1:
						state = Pending
					}
					rec.Observe(ds[i].Key(), fmt.Sprintf("ctx-%d", r.IntN(2)), Report{Revision: ds[i].At, State: state, At: now})
				}
			}
		}
		if p.State == Done {
			for _, d := range ds {
				pr := p.Record.Downstreams[d.Key()]
				if d.At != revision && (pr == nil || pr.Excluded == "") {
					t.Fatalf("done, but %s holds v%d of v%d", d.Key(), d.At, revision)
				}
			}
		}
	})
}

func randomSpec(r *rand.Rand, waves int) Spec {
	s := Spec{Package: "base/upf", RequireDeployment: r.IntN(2) == 0}
	for i := 0; i < waves; i++ {
		w := Wave{Name: fmt.Sprintf("w%d", i), MaxInProgress: r.IntN(4), Soak: time.Duration(r.IntN(3)) * 30 * time.Minute}
		switch r.IntN(4) {
		case 0:
			w.Select.Repositories = []string{fmt.Sprintf("acme/r%d*", r.IntN(10))}
		case 1:
			w.Select.Topic = fmt.Sprintf("t%d", r.IntN(3))
		case 2:
			w.Select.Labels = map[string]string{"env": fmt.Sprintf("e%d", r.IntN(3))}
		}
		s.Waves = append(s.Waves, w)
	}
	return s
}

func randomFleet(r *rand.Rand, n int) []Downstream {
	ds := make([]Downstream, n)
	for i := range ds {
		ds[i] = Downstream{Repo: fmt.Sprintf("acme/r%d", i), Package: "upf", Topics: []string{fmt.Sprintf("t%d", r.IntN(3))},
			Labels: map[string]string{"env": fmt.Sprintf("e%d", r.IntN(3))}}
	}
	return ds
}

// checkPlan asserts the rules every plan keeps.
func checkPlan(t *testing.T, spec Spec, ds []Downstream, rec Record, p Plan) {
	t.Helper()
	if (p.State == Paused || p.State == Stopped) && len(p.Offers) > 0 {
		t.Fatalf("%s, yet %d offers", p.State, len(p.Offers))
	}
	waveOf := map[string]int{}
	at := map[string]int{}
	for i, w := range Assign(spec, ds) {
		for _, d := range w {
			waveOf[d.Key()] = i
			at[d.Key()] = d.At
		}
	}
	newOffers := make([]int, len(p.Waves))
	for _, o := range p.Offers {
		key := Key(o.Repo, o.Package)
		j := waveOf[key]
		for i := 0; i < j; i++ {
			if s := p.Waves[i].State; s != WaveDone && s != WaveSkipped {
				t.Fatalf("offer to %s in wave %d while wave %d is %s", key, j, i, s)
			}
		}
		if o.Revision != p.Revision {
			t.Fatalf("offer of v%d in a plan of v%d", o.Revision, p.Revision)
		}
		pr := rec.Downstreams[key]
		if pr != nil && pr.Offered >= o.Revision {
			t.Fatalf("%s offered v%d again", key, o.Revision)
		}
		if !o.Refresh {
			newOffers[j]++
		}
	}
	for i, w := range spec.waves() {
		if w.MaxInProgress > 0 && newOffers[i] > 0 && p.Waves[i].InProgress+newOffers[i] > w.MaxInProgress {
			t.Fatalf("wave %s: %d in progress and %d new offers, bound %d", w.Name, p.Waves[i].InProgress, newOffers[i], w.MaxInProgress)
		}
	}
}
