package rollout

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// Targets of one planning pass over 10,000 downstreams (issue #27).
const (
	benchTargetTime  = 200 * time.Millisecond
	benchTargetBytes = 64 << 20
)

// benchFleet is a fleet of n downstreams mid-rollout over ten waves (by
// repository pattern, topic and labels): the first four waves met the
// rule, the fifth is rolling (half merged and healthy, a quarter in progress,
// a quarter to propose within its bound), an older revision's failure
// acknowledged.
func benchFleet(n int) (Spec, []Downstream, Record, time.Time) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	spec := Spec{Package: "base/upf", RequireDeployment: true}
	for i := 0; i < 10; i++ {
		w := Wave{Name: fmt.Sprintf("wave-%d", i), MaxInProgress: 300, Soak: time.Hour}
		switch i % 3 {
		case 0:
			w.Select.Repositories = []string{fmt.Sprintf("acme/w%d-*", i), fmt.Sprintf("acme/extra-%d", i)}
		case 1:
			w.Select.Topic = fmt.Sprintf("wave-%d", i)
		case 2:
			w.Select.Labels = map[string]string{"wave": fmt.Sprint(i), "tier": "edge"}
		}
		if i == 9 {
			w.Select = Selector{}
		}
		spec.Waves = append(spec.Waves, w)
	}
	rec := Record{Package: spec.Package, Downstreams: map[string]*Progress{}, Resumed: &Control{By: "alice", At: now.Add(-3 * time.Hour)}}
	ds := make([]Downstream, n)
	for i := range ds {
		wave := i % 10
		d := Downstream{Repo: fmt.Sprintf("acme/w%d-%d", wave, i), Package: "network/upf", At: 1,
			Topics: []string{"edge", fmt.Sprintf("wave-%d", wave)}, Labels: map[string]string{"wave": fmt.Sprint(wave), "tier": "edge"}}
		if wave < 4 || wave == 4 && (i/10)%4 < 2 {
			d.At = 2
			p := rec.progress(d.Key())
			p.Offered = 2
			p.Merged = &Merge{Revision: 2, At: now.Add(-6 * time.Hour)}
			p.Reports = map[string]Report{
				"kustomization/upf/1a2b3c4d": {Revision: 2, State: Success, At: now.Add(-5 * time.Hour), Since: now.Add(-5 * time.Hour)},
				"continuous-delivery/upf":    {Revision: 1, State: Failure, At: now.Add(-30 * time.Hour)},
			}
		} else if wave == 4 && (i/10)%4 == 2 {
			rec.progress(d.Key()).Offered = 2
		}
		ds[i] = d
	}
	return spec, ds, rec, now
}

// BenchmarkRolloutPlan is one planning pass over 10,000 downstreams in ten
// waves, against the reference of decoding the signed record the pass
// plans from (measured in the same run).
func BenchmarkRolloutPlan(b *testing.B) {
	spec, ds, rec, now := benchFleet(10000)
	key := []byte("bench")
	file, err := Encode(key, "acme/catalog", rec)
	if err != nil {
		b.Fatal(err)
	}
	p := Decide(spec, 2, ds, rec, now)
	if p.State != Rolling || len(p.Offers) == 0 || p.Waves[4].State != WaveRolling {
		b.Fatalf("the fleet is not mid-rollout: %s %s, %d offers", p.State, p.Reason, len(p.Offers))
	}
	measure := func(f func()) (time.Duration, uint64) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for i := 0; i < b.N; i++ {
			f()
		}
		elapsed := time.Since(start) / time.Duration(b.N)
		runtime.ReadMemStats(&after)
		return elapsed, (after.TotalAlloc - before.TotalAlloc) / uint64(b.N)
	}
	b.ResetTimer()
	plan, planBytes := measure(func() { Decide(spec, 2, ds, rec, now) })
	decode, decodeBytes := measure(func() {
		if _, err := Decode(key, "acme/catalog", "base/upf", file); err != nil {
			b.Fatal(err)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(plan.Microseconds())/1000, "ms/plan")
	b.ReportMetric(float64(planBytes)/(1<<20), "MiB-allocated/plan")
	fmt.Printf("\nrollout plan of %d downstreams in %d waves: %.1f ms, %.1f MiB allocated (targets %s, %d MiB); decoding its %d KiB record: %.1f ms, %.1f MiB (the plan is %.2f× the decode)\n",
		len(ds), len(spec.Waves), float64(plan.Microseconds())/1000, float64(planBytes)/(1<<20), benchTargetTime, benchTargetBytes>>20,
		len(file)>>10, float64(decode.Microseconds())/1000, float64(decodeBytes)/(1<<20), float64(plan)/float64(decode))
	if plan > benchTargetTime || planBytes > benchTargetBytes {
		b.Fatalf("a planning pass took %s and allocated %d MiB, over the targets of %s and %d MiB", plan, planBytes>>20, benchTargetTime, benchTargetBytes>>20)
	}
}
