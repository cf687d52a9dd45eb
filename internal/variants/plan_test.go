package variants

import (
	"fmt"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
)

const up = "acme/catalog"

func variant(mut ...func(*config.Variant)) config.Variant {
	v := config.Variant{
		Upstream:       config.VariantUpstream{Package: "base/upf"},
		Targets:        config.Targets{Repositories: []string{"acme/edge-1"}},
		Downstream:     config.VariantDownstream{Package: "upf"},
		Labels:         map[string]string{"tier": "edge"},
		AdoptionPolicy: config.AdoptNone,
		DeletionPolicy: config.DeleteOnRemove,
	}
	for _, m := range mut {
		m(&v)
	}
	return v
}

func installed(repo string, pkgs map[string]Package, open ...Proposal) Target {
	return Target{Repo: repo, Installed: true, Packages: pkgs, Open: open}
}

// owned is a package made by v in repo at revision rev with v's current mutations.
func owned(t *testing.T, v config.Variant, repo string, rev int) Package {
	t.Helper()
	o := OwnershipOf(up, v)
	return Package{Owner: &o, Revision: rev, Spec: spec(t, v, repo)}
}

func spec(t *testing.T, v config.Variant, repo string) string {
	t.Helper()
	owner, name, _ := strings.Cut(repo, "/")
	s, err := SpecDigest(v, config.Repository{Owner: owner, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// line is an action as the golden tables write it.
func line(a Action) string {
	s := fmt.Sprintf("%s %s %s", a.Target, a.Package, a.Kind)
	if a.Kind != Report {
		s += fmt.Sprintf(" v%d", a.Revision)
		if a.Refresh {
			s += fmt.Sprintf(" refresh #%d", a.PullRequest)
		}
		return s
	}
	s += ": " + string(a.State)
	if a.PullRequest != 0 {
		s += fmt.Sprintf(" #%d", a.PullRequest)
	}
	return s
}

func TestPlanGolden(t *testing.T) {
	base := variant()
	relabelled := variant(func(v *config.Variant) { v.Labels = map[string]string{"tier": "edge", "site": "x"} })
	byTopic := variant(func(v *config.Variant) {
		v.Targets = config.Targets{Topic: "edge"}
		v.Downstream.Package = "{{ .Repository.Name }}/upf"
		v.Namespace = "{{ .Repository.Name }}"
	})
	adopting := variant(func(v *config.Variant) { v.AdoptionPolicy = config.AdoptExisting })
	orphaning := variant(func(v *config.Variant) { v.DeletionPolicy = config.OrphanOnRemove })
	paused := variant(func(v *config.Variant) { v.Paused = true })
	pinned := variant(func(v *config.Variant) { v.Upstream.Revision = 2 })
	pinnedAhead := variant(func(v *config.Variant) { v.Upstream.Revision = 9 })
	other := OwnershipOf("acme/other-catalog", base)
	cases := []struct {
		name     string
		variants []config.Variant
		latest   int
		targets  func(t *testing.T) []Target
		want     []string
	}{
		{"missing downstream: clone at latest", []config.Variant{base}, 3,
			func(*testing.T) []Target { return []Target{installed("acme/edge-1", nil)} },
			[]string{"acme/edge-1 upf clone v3"}},
		{"a pinned revision", []config.Variant{pinned}, 3,
			func(*testing.T) []Target { return []Target{installed("acme/edge-1", nil)} },
			[]string{"acme/edge-1 upf clone v2"}},
		{"a pinned revision not published yet", []config.Variant{pinnedAhead}, 3,
			func(*testing.T) []Target { return []Target{installed("acme/edge-1", nil)} },
			[]string{"acme/edge-1 upf report: failed"}},
		{"nothing published yet", []config.Variant{base}, 0,
			func(*testing.T) []Target { return []Target{installed("acme/edge-1", nil)} },
			[]string{"acme/edge-1 upf report: failed"}},
		{"a listed repository without porchbot", []config.Variant{base}, 3,
			func(*testing.T) []Target { return []Target{{Repo: "acme/edge-1"}} },
			[]string{"acme/edge-1 upf report: not installed"}},
		{"a listed repository porchbot never heard of", []config.Variant{base}, 3,
			func(*testing.T) []Target { return nil },
			[]string{"acme/edge-1 upf report: not installed"}},
		{"behind: update; in step: nothing", []config.Variant{variant(func(v *config.Variant) {
			v.Targets.Repositories = []string{"acme/edge-1", "acme/edge-2"}
		})}, 3,
			func(t *testing.T) []Target {
				v := variant()
				return []Target{
					installed("acme/edge-1", map[string]Package{"upf": owned(t, v, "acme/edge-1", 2)}),
					installed("acme/edge-2", map[string]Package{"upf": owned(t, v, "acme/edge-2", 3)}),
				}
			},
			[]string{"acme/edge-1 upf update v3", "acme/edge-2 upf report: in step"}},
		{"the entry's mutations changed: refresh at the same revision", []config.Variant{relabelled}, 3,
			func(t *testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": owned(t, base, "acme/edge-1", 3)})}
			},
			[]string{"acme/edge-1 upf update v3"}},
		{"topic: installed repositories with the topic only, templates per target", []config.Variant{byTopic}, 1,
			func(*testing.T) []Target {
				a := installed("acme/edge-a", nil)
				a.Topics = []string{"Edge"}
				b := installed("acme/core", nil)
				b.Topics = []string{"core"}
				c := Target{Repo: "acme/edge-c", Topics: []string{"edge"}}
				return []Target{a, b, c}
			},
			[]string{"acme/edge-a edge-a/upf clone v1"}},
		{"a template that gives an invalid name fails that target only", []config.Variant{byTopic}, 1,
			func(*testing.T) []Target {
				a := installed("acme/edge-a", nil)
				a.Topics = []string{"edge"}
				b := installed("acme/x.lock", nil)
				b.Topics = []string{"edge"}
				return []Target{a, b}
			},
			[]string{"acme/edge-a edge-a/upf clone v1", "acme/x.lock  report: failed"}},
		{"existing package not made by a variant: adoptNone leaves it", []config.Variant{base}, 3,
			func(*testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": {Revision: 1}})}
			},
			[]string{"acme/edge-1 upf report: not owned"}},
		{"existing package not made by a variant: adoptExisting takes it", []config.Variant{adopting}, 3,
			func(*testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": {Revision: 1}})}
			},
			[]string{"acme/edge-1 upf adopt v3"}},
		{"a package of another variant is never taken, whatever the policy", []config.Variant{adopting}, 3,
			func(*testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": {Owner: &other, Revision: 1}})}
			},
			[]string{"acme/edge-1 upf report: not owned"}},
		{"an open pull request bringing the same: nothing", []config.Variant{base}, 3,
			func(t *testing.T) []Target {
				return []Target{installed("acme/edge-1", nil,
					Proposal{Number: 7, Package: "upf", Kind: Clone, Owner: OwnershipOf(up, base), Revision: 3, Spec: spec(t, base, "acme/edge-1")})}
			},
			[]string{"acme/edge-1 upf report: pull request open #7"}},
		{"an open pull request bringing an older revision: refreshed", []config.Variant{base}, 3,
			func(t *testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": owned(t, base, "acme/edge-1", 1)},
					Proposal{Number: 8, Package: "upf", Kind: Update, Owner: OwnershipOf(up, base), Revision: 2, Spec: spec(t, base, "acme/edge-1")})}
			},
			[]string{"acme/edge-1 upf update v3 refresh #8"}},
		{"target removed: deletion proposal", []config.Variant{variant(func(v *config.Variant) {
			v.Targets.Repositories = []string{"acme/edge-2"}
		})}, 3,
			func(t *testing.T) []Target {
				return []Target{
					installed("acme/edge-1", map[string]Package{"upf": owned(t, base, "acme/edge-1", 3)}),
					installed("acme/edge-2", map[string]Package{"upf": owned(t, base, "acme/edge-2", 3)}),
				}
			},
			[]string{"acme/edge-1 upf delete v0", "acme/edge-2 upf report: in step"}},
		{"entry removed, made with orphan: ownership removed", nil, 3,
			func(t *testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": owned(t, orphaning, "acme/edge-1", 3)})}
			},
			[]string{"acme/edge-1 upf orphan v0"}},
		{"a removal already proposed: nothing", nil, 3,
			func(t *testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": owned(t, base, "acme/edge-1", 3)},
					Proposal{Number: 9, Package: "upf", Kind: Delete, Owner: OwnershipOf(up, base)})}
			},
			[]string{"acme/edge-1 upf report: pull request open #9"}},
		{"packages of other upstream repositories are not ours to remove", nil, 3,
			func(*testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": {Owner: &other, Revision: 1}})}
			},
			nil},
		{"paused: nothing new, nothing removed", []config.Variant{paused}, 3,
			func(t *testing.T) []Target {
				return []Target{installed("acme/edge-1", map[string]Package{"upf": owned(t, paused, "acme/edge-1", 1)})}
			},
			[]string{"acme/edge-1 upf report: paused"}},
		{"two entries producing the same package: the second fails", []config.Variant{base, variant(func(v *config.Variant) {
			v.Upstream.Package = "base/upf2"
		})}, 3,
			func(*testing.T) []Target { return []Target{installed("acme/edge-1", nil)} },
			[]string{"acme/edge-1 upf clone v3", "acme/edge-1 upf report: failed"}},
		{"prConcurrentLimit: beyond it, waiting", []config.Variant{base, variant(func(v *config.Variant) {
			v.Upstream.Package = "base/smf"
			v.Downstream.Package = "smf"
		}), variant(func(v *config.Variant) {
			v.Upstream.Package = "base/amf"
			v.Downstream.Package = "amf"
		})}, 3,
			func(*testing.T) []Target {
				tg := installed("acme/edge-1", nil)
				tg.Limit, tg.Busy = 2, 1
				return []Target{tg}
			},
			[]string{"acme/edge-1 amf report: waiting for limit", "acme/edge-1 smf report: waiting for limit", "acme/edge-1 upf clone v3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			latest := map[string]int{}
			for _, v := range tc.variants {
				latest[v.Upstream.Package] = tc.latest
			}
			if len(tc.variants) == 0 {
				latest["base/upf"] = tc.latest
			}
			got := Plan(Source{Repo: up, Variants: tc.variants, Latest: latest}, tc.targets(t))
			var lines []string
			for _, a := range got {
				lines = append(lines, line(a))
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("plan:\n  %s\nwant:\n  %s\n(%+v)", strings.Join(lines, "\n  "), strings.Join(tc.want, "\n  "), got)
			}
		})
	}
}

func TestOwnershipRoundTrip(t *testing.T) {
	o := Ownership{Upstream: "acme/catalog", Package: "base/upf", Downstream: "{{ .Repository.Name }}/upf; x=y", OnRemove: config.OrphanOnRemove}
	got, err := ParseOwnership(o.Annotation())
	if err != nil || got != o {
		t.Fatalf("%q → %+v (%v)", o.Annotation(), got, err)
	}
	for _, bad := range []string{"", "package=x", "upstream=a/b; package=x; onRemove=keep", "upstream=a/b; package=x; colour=red", "upstream=a/b; upstream=c/d; package=x", "nonsense"} {
		if _, err := ParseOwnership(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
