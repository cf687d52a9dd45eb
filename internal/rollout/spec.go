package rollout

import (
	"path"
	"sort"
	"strings"
	"time"
)

// Spec is the rollout of one upstream package: its waves in order and the
// rule a wave must meet before the next one opens.
type Spec struct {
	// Package is the upstream package, a package of the repository whose
	// configuration holds the rollout.
	Package string
	Waves   []Wave
	// RequireDeployment: a wave is met when every downstream of it merged
	// the revision and its deployment reported success on a commit holding
	// it; false: merged is enough.
	RequireDeployment bool
}

// Wave is a set of downstreams updated together.
type Wave struct {
	Name   string
	Select Selector
	// MaxInProgress bounds the downstreams of the wave with an update
	// proposed and not yet merged (0: no bound).
	MaxInProgress int
	// Soak is how long the wave stays met before the next one opens.
	Soak time.Duration
}

// Selector picks a wave's downstreams. Every field given must match (an
// empty selector matches every downstream no earlier wave took); within a
// field, any entry.
type Selector struct {
	// Repositories are "owner/name" entries or path.Match patterns of
	// them ("acme/edge-*"), compared case-insensitively.
	Repositories []string
	// Topic is a repository topic.
	Topic string
	// Labels must all be on the downstream package's Kptfile.
	Labels map[string]string
}

// Empty says whether the selector picks every downstream.
func (s Selector) Empty() bool {
	return len(s.Repositories) == 0 && s.Topic == "" && len(s.Labels) == 0
}

// RemainingWave names the wave that takes the downstreams no configured
// wave selects, when every configured wave has a selector.
const RemainingWave = "remaining"

// Downstream is one downstream package of the rolled-out upstream package.
type Downstream struct {
	Repo    string // owner/name
	Package string
	Topics  []string          // the repository's topics
	Labels  map[string]string // the package's Kptfile labels
	// At is the upstream revision its deployment branch holds (0: none
	// porchbot recognises).
	At int
}

// Key identifies a downstream in a record.
func (d Downstream) Key() string { return Key(d.Repo, d.Package) }

// Key identifies the downstream package pkg of repo.
func Key(repo, pkg string) string { return strings.ToLower(repo) + ":" + pkg }

// matcher is a selector made ready to match many downstreams.
type matcher struct {
	exact    map[string]bool
	patterns []string
	topic    string
	labels   map[string]string
	empty    bool
}

func newMatcher(s Selector) matcher {
	m := matcher{exact: map[string]bool{}, topic: strings.ToLower(s.Topic), labels: s.Labels, empty: s.Empty()}
	for _, r := range s.Repositories {
		r = strings.ToLower(r)
		if strings.ContainsAny(r, "*?[") {
			m.patterns = append(m.patterns, r)
		} else {
			m.exact[r] = true
		}
	}
	return m
}

func (m matcher) matches(d Downstream) bool {
	if m.empty {
		return true
	}
	if len(m.exact)+len(m.patterns) > 0 {
		repo := strings.ToLower(d.Repo)
		ok := m.exact[repo]
		for _, p := range m.patterns {
			if ok {
				break
			}
			ok, _ = path.Match(p, repo)
		}
		if !ok {
			return false
		}
	}
	if m.topic != "" {
		found := false
		for _, t := range d.Topics {
			found = found || strings.ToLower(t) == m.topic
		}
		if !found {
			return false
		}
	}
	for k, v := range m.labels {
		if got, ok := d.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// Waves is the spec's waves as planned: the configured ones, and the
// remaining wave when every configured wave has a selector.
func (s Spec) waves() []Wave {
	for _, w := range s.Waves {
		if w.Select.Empty() {
			return s.Waves
		}
	}
	return append(append([]Wave(nil), s.Waves...), Wave{Name: RemainingWave})
}

// Assign puts each downstream in the first wave that selects it, each
// wave's downstreams sorted by key.
func Assign(s Spec, ds []Downstream) [][]Downstream {
	waves := s.waves()
	ms := make([]matcher, len(waves))
	for i, w := range waves {
		ms[i] = newMatcher(w.Select)
	}
	out := make([][]Downstream, len(waves))
	for _, d := range ds {
		for i, m := range ms {
			if m.matches(d) {
				out[i] = append(out[i], d)
				break
			}
		}
	}
	for _, w := range out {
		sort.Slice(w, func(i, j int) bool { return w[i].Key() < w[j].Key() })
	}
	return out
}
