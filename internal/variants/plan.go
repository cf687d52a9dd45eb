package variants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/porchbot/porchbot/internal/config"
)

// Kind is what an action does.
type Kind string

// Action kinds. Clone, Update, Adopt, Delete and Orphan open (or refresh)
// one pull request in the target repository; Report does nothing but say
// the target package's State.
const (
	Clone  Kind = "clone"  // a clone draft and its proposal: the package is missing
	Update Kind = "update" // an update pull request: behind the wanted revision, or the entry's mutations changed
	Adopt  Kind = "adopt"  // an update pull request that also writes the ownership (adoptExisting)
	Delete Kind = "delete" // a deletion proposal: no entry targets the package any more (deletionPolicy delete)
	Orphan Kind = "orphan" // a proposal removing the ownership annotation (deletionPolicy orphan)
	Report Kind = "report" // nothing to do; State says why
)

// State is a target package's state, as `/porch variants` shows it.
type State string

// States.
const (
	InStep  State = "in step"
	PROpen  State = "pull request open"
	Waiting State = "waiting for limit"
	// HeldByRollout: the upstream package's rollout has not reached the
	// target's wave (docs/rollouts.md).
	HeldByRollout State = "held by the rollout"
	Failed        State = "failed"
	Paused        State = "paused"
	NotOwned      State = "not owned"
	NotInstalled  State = "not installed"
	Planned       State = "planned" // the state of a non-Report action
)

// Action is one planned step for one target package.
type Action struct {
	Kind    Kind
	Target  string // owner/name
	Package string // downstream package ("" when the name could not be made)
	// Variant is the index of the entry in Source.Variants; -1 for a
	// package whose entry is gone.
	Variant  int
	Owner    Ownership
	Revision int    // the upstream revision it brings (Clone, Update, Adopt)
	Spec     string // the mutations digest it brings
	// Refresh is set when the action updates porchbot's open pull request
	// (PullRequest) rather than opening one.
	Refresh     bool
	PullRequest int
	State       State
	Reason      string
}

func (a Action) opens() bool { return a.Kind != Report && !a.Refresh }

// Plan returns the actions for every target package of src's entries and
// for every package of targets owned by an entry of src that no entry
// targets any more, sorted by target and package. Each (target, package)
// gets exactly one action.
func Plan(src Source, targets []Target) []Action {
	p := planner{src: src, byRepo: map[string]*Target{}, claimed: map[string]int{}}
	for i := range targets {
		p.byRepo[strings.ToLower(targets[i].Repo)] = &targets[i]
	}
	for i, v := range src.Variants {
		p.variant(i, v, targets)
	}
	p.removals(targets)
	p.limit(targets)
	slices.SortStableFunc(p.out, func(a, b Action) int {
		if c := strings.Compare(strings.ToLower(a.Target), strings.ToLower(b.Target)); c != 0 {
			return c
		}
		return strings.Compare(a.Package, b.Package)
	})
	return p.out
}

type planner struct {
	src     Source
	byRepo  map[string]*Target
	claimed map[string]int // target/package → index of the entry that produced it
	out     []Action
}

func key(repo, pkg string) string { return strings.ToLower(repo) + "\x00" + pkg }

// selected are the repositories entry v targets: its list (whether or not
// porchbot knows them), or every installed target with its topic.
func (p *planner) selected(v config.Variant, targets []Target) []string {
	if len(v.Targets.Repositories) > 0 {
		return v.Targets.Repositories
	}
	var out []string
	for _, t := range targets {
		if t.Installed && v.Targets.Topic != "" && slices.ContainsFunc(t.Topics, func(s string) bool { return strings.EqualFold(s, v.Targets.Topic) }) {
			out = append(out, t.Repo)
		}
	}
	return out
}

func (p *planner) variant(i int, v config.Variant, targets []Target) {
	own := OwnershipOf(p.src.Repo, v)
	latest := p.src.Latest[v.Upstream.Package]
	want := latest
	if v.Upstream.Revision != config.LatestRevision {
		want = v.Upstream.Revision
		if want > latest {
			want = 0 // not published: reported
		}
	}
	for _, repo := range p.selected(v, targets) {
		a := Action{Kind: Report, Target: repo, Variant: i, Owner: own, Revision: want}
		owner, name, _ := strings.Cut(repo, "/")
		pkg, err := v.DownstreamPackage(config.Repository{Owner: owner, Name: name})
		if err != nil {
			a.State, a.Reason = Failed, err.Error()
			p.out = append(p.out, a)
			continue
		}
		a.Package = pkg
		if j, dup := p.claimed[key(repo, pkg)]; dup {
			a.State, a.Reason = Failed, fmt.Sprintf("variants[%d] already produces %s in %s", j, pkg, repo)
			p.out = append(p.out, a)
			continue
		}
		p.claimed[key(repo, pkg)] = i
		p.out = append(p.out, p.target(a, v, own))
	}
}

// target decides for one target package of entry v.
func (p *planner) target(a Action, v config.Variant, own Ownership) Action {
	t := p.byRepo[strings.ToLower(a.Target)]
	switch {
	case t == nil || !t.Installed:
		a.State, a.Reason = NotInstalled, "porchbot is not installed on "+a.Target
		return a
	case v.Paused:
		a.State, a.Reason = Paused, "the variant is paused"
		return a
	case a.Revision == 0:
		a.State, a.Reason = Failed, p.noRevision(v)
		return a
	}
	owner, name, _ := strings.Cut(t.Repo, "/")
	spec, err := SpecDigest(v, config.Repository{Owner: owner, Name: name})
	if err != nil {
		a.State, a.Reason = Failed, err.Error()
		return a
	}
	a.Spec = spec
	pkg, exists := t.Packages[a.Package]
	kind := Update
	switch {
	case !exists:
		kind = Clone
	case pkg.Owner == nil && v.AdoptionPolicy == config.AdoptExisting:
		kind = Adopt
	case pkg.Owner == nil:
		a.State, a.Reason = NotOwned, "the package exists and was not made by a variant (adoptionPolicy: adoptNone)"
		return a
	case !pkg.Owner.SameEntry(own):
		a.State, a.Reason = NotOwned, fmt.Sprintf("the package belongs to another variant (%s)", pkg.Owner.Annotation())
		return a
	case pkg.Revision >= a.Revision && pkg.Spec == spec:
		a.State = InStep
		return a
	}
	if pr, ok := openFor(t, a.Package); ok {
		if pr.brings(kind, own, a.Revision, spec) {
			a.State, a.PullRequest = PROpen, pr.Number
			return a
		}
		a.Refresh, a.PullRequest = true, pr.Number
	}
	a.Kind, a.State = kind, Planned
	return a
}

func (p *planner) noRevision(v config.Variant) string {
	if v.Upstream.Revision != config.LatestRevision {
		return fmt.Sprintf("%s/v%d is not published", v.Upstream.Package, v.Upstream.Revision)
	}
	return v.Upstream.Package + " has no published revision yet"
}

// removals plans, for each installed target, the packages owned by an
// entry of src that no entry targets any more.
func (p *planner) removals(targets []Target) {
	for _, t := range targets {
		if !t.Installed {
			continue
		}
		names := make([]string, 0, len(t.Packages))
		for n := range t.Packages {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			pkg := t.Packages[n]
			if pkg.Owner == nil || !strings.EqualFold(pkg.Owner.Upstream, p.src.Repo) {
				continue
			}
			if _, still := p.claimed[key(t.Repo, n)]; still {
				continue
			}
			if p.pausedEntry(*pkg.Owner) {
				continue
			}
			p.claimed[key(t.Repo, n)] = -1
			a := Action{Kind: Delete, Target: t.Repo, Package: n, Variant: -1, Owner: *pkg.Owner, State: Planned,
				Reason: "no variants entry targets it any more"}
			if pkg.Owner.OnRemove == config.OrphanOnRemove {
				a.Kind = Orphan
			}
			if pr, ok := openFor(&t, n); ok {
				if pr.brings(a.Kind, a.Owner, 0, "") {
					a.Kind, a.State, a.PullRequest = Report, PROpen, pr.Number
				} else {
					a.Refresh, a.PullRequest = true, pr.Number
				}
			}
			p.out = append(p.out, a)
		}
	}
}

// pausedEntry reports whether o names a paused entry of src: a paused
// variant plans nothing, removals included.
func (p *planner) pausedEntry(o Ownership) bool {
	for _, v := range p.src.Variants {
		if v.Paused && OwnershipOf(p.src.Repo, v).SameEntry(o) {
			return true
		}
	}
	return false
}

// limit turns the actions that would open a pull request beyond a
// target's prConcurrentLimit into Waiting reports, in plan order.
func (p *planner) limit(targets []Target) {
	room := map[string]int{}
	for _, t := range targets {
		if t.Limit > 0 {
			room[strings.ToLower(t.Repo)] = t.Limit - t.Busy
		}
	}
	for i := range p.out {
		a := &p.out[i]
		left, limited := room[strings.ToLower(a.Target)]
		if !limited || !a.opens() {
			continue
		}
		if left <= 0 {
			a.Reason = fmt.Sprintf("%s is at its limit of open update pull requests (updates.prConcurrentLimit); it would %s", a.Target, a.Kind)
			a.Kind, a.State = Report, Waiting
			continue
		}
		room[strings.ToLower(a.Target)] = left - 1
	}
}

// openFor is porchbot's open variant pull request for pkg in t.
func openFor(t *Target, pkg string) (Proposal, bool) {
	for _, pr := range t.Open {
		if pr.Package == pkg {
			return pr, true
		}
	}
	return Proposal{}, false
}
