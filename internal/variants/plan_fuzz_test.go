package variants

import (
	"fmt"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
)

// fuzzWorld builds entries and target facts from fuzz bytes.
type fuzzWorld struct {
	b []byte
	i int
}

func (w *fuzzWorld) next(n int) int {
	if w.i >= len(w.b) || n <= 0 {
		return 0
	}
	v := int(w.b[w.i]) % n
	w.i++
	return v
}

func (w *fuzzWorld) build() (Source, []Target) {
	repos := []string{"acme/e1", "acme/e2", "acme/e3", "acme/x.lock"}
	pkgs := []string{"base/a", "base/b"}
	templates := []string{"", "x", "{{ .Repository.Name }}/x"}
	src := Source{Repo: up, Latest: map[string]int{}}
	for _, p := range pkgs {
		src.Latest[p] = w.next(4)
	}
	for n := w.next(4); n > 0; n-- {
		v := config.Variant{
			Upstream:       config.VariantUpstream{Package: pkgs[w.next(len(pkgs))], Revision: w.next(4)},
			Downstream:     config.VariantDownstream{Package: templates[w.next(len(templates))]},
			Labels:         map[string]string{"l": fmt.Sprint(w.next(2))},
			AdoptionPolicy: []string{config.AdoptNone, config.AdoptExisting}[w.next(2)],
			DeletionPolicy: []string{config.DeleteOnRemove, config.OrphanOnRemove}[w.next(2)],
			Paused:         w.next(5) == 0,
		}
		if w.next(2) == 0 {
			v.Targets.Topic = "edge"
		} else {
			for _, r := range repos {
				if w.next(2) == 0 {
					v.Targets.Repositories = append(v.Targets.Repositories, r)
				}
			}
			if len(v.Targets.Repositories) == 0 {
				v.Targets.Repositories = []string{repos[0]}
			}
		}
		src.Variants = append(src.Variants, v)
	}
	var targets []Target
	for _, r := range repos {
		if w.next(4) == 0 {
			continue // unknown to porchbot
		}
		t := Target{Repo: r, Installed: w.next(4) != 0, Packages: map[string]Package{}, Limit: w.next(3)}
		if w.next(2) == 0 {
			t.Topics = []string{"edge"}
		}
		for _, name := range []string{"x", "e1/x", "e2/x", "base/a"} {
			switch w.next(4) {
			case 1: // someone's own package
				t.Packages[name] = Package{Revision: w.next(3)}
			case 2: // made by one of the entries (maybe an older version of it)
				if len(src.Variants) > 0 {
					v := src.Variants[w.next(len(src.Variants))]
					o := OwnershipOf(up, v)
					t.Packages[name] = Package{Owner: &o, Revision: w.next(4), Spec: fmt.Sprint("old", w.next(2))}
				}
			case 3: // made by an entry that is gone
				o := Ownership{Upstream: up, Package: "base/gone", OnRemove: []string{config.DeleteOnRemove, config.OrphanOnRemove}[w.next(2)]}
				t.Packages[name] = Package{Owner: &o, Revision: 1}
			}
		}
		targets = append(targets, t)
	}
	return src, targets
}

// FuzzPlanConverges: for any entries and target facts, no target package
// gets two actions (reports aside: each entry naming it says its state); carrying out the plan (opening its pull requests) and
// planning again plans nothing more; merging them and planning again
// converges within a few rounds (the rounds only drain what waited for a
// target's pull request limit).
func FuzzPlanConverges(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{3, 3, 2, 1, 0, 1, 1, 0, 1, 0, 1, 2, 2, 2, 2, 1, 3, 3, 3, 3, 3, 1, 2, 0, 1, 2, 3})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &fuzzWorld{b: data}
		src, targets := w.build()
		for round := 0; ; round++ {
			if round > 10 {
				t.Fatalf("no convergence after %d rounds", round)
			}
			plan := Plan(src, targets)
			checkOneActionEach(t, plan)
			acted := openPullRequests(t, plan, targets)
			if again := actionsOf(Plan(src, targets)); len(again) > 0 {
				t.Fatalf("round %d: with the pull requests open, planned again: %v", round, again)
			}
			if !acted {
				return
			}
			mergeAll(targets)
		}
	})
}

func checkOneActionEach(t *testing.T, plan []Action) {
	t.Helper()
	seen := map[string]bool{}
	for _, a := range plan {
		if a.Kind == Report {
			continue // a report per entry that names the package: the table shows each
		}
		k := key(a.Target, a.Package)
		if seen[k] {
			t.Fatalf("two actions for %s %s: %v", a.Target, a.Package, plan)
		}
		seen[k] = true
	}
}

func actionsOf(plan []Action) []string {
	var out []string
	for _, a := range plan {
		if a.Kind != Report {
			out = append(out, line(a))
		}
	}
	return out
}

// openPullRequests carries the plan out: each action opens its pull
// request, or refreshes the open one.
func openPullRequests(t *testing.T, plan []Action, targets []Target) bool {
	t.Helper()
	acted := false
	for _, a := range plan {
		if a.Kind == Report {
			continue
		}
		acted = true
		tg := findTarget(targets, a.Target)
		if tg == nil || !tg.Installed {
			t.Fatalf("action on a repository porchbot is not installed on: %v", line(a))
		}
		pr := Proposal{Package: a.Package, Kind: a.Kind, Owner: a.Owner, Revision: a.Revision, Spec: a.Spec}
		if a.Refresh {
			for i := range tg.Open {
				if tg.Open[i].Number == a.PullRequest {
					pr.Number = a.PullRequest
					tg.Open[i] = pr
				}
			}
			continue
		}
		pr.Number = 100 + len(tg.Open)
		tg.Open = append(tg.Open, pr)
		tg.Busy++
		if tg.Limit > 0 && tg.Busy > tg.Limit {
			t.Fatalf("%s: %d pull requests open, limit %d", tg.Repo, tg.Busy, tg.Limit)
		}
	}
	return acted
}

// mergeAll merges every open pull request.
func mergeAll(targets []Target) {
	for i := range targets {
		tg := &targets[i]
		for _, pr := range tg.Open {
			switch pr.Kind {
			case Delete:
				delete(tg.Packages, pr.Package)
			case Orphan:
				p := tg.Packages[pr.Package]
				p.Owner = nil
				tg.Packages[pr.Package] = p
			default:
				o := pr.Owner
				tg.Packages[pr.Package] = Package{Owner: &o, Revision: pr.Revision, Spec: pr.Spec}
			}
		}
		tg.Busy -= len(tg.Open)
		tg.Open = nil
	}
}

func findTarget(targets []Target, repo string) *Target {
	for i := range targets {
		if strings.EqualFold(targets[i].Repo, repo) {
			return &targets[i]
		}
	}
	return nil
}
