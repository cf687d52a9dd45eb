// Package catalog is the read-only web catalog's domain (SPEC §8,
// docs/catalog.md): the view of one repository built from porchbot's cache
// (the package index, draft branches, proposals and their checks, the
// downstream registry), the access rule that filters it for a viewer, a
// diff between two revisions computed from git, and its server-rendered
// HTML (html/template, a little embedded CSS, no front-end build). It never
// touches HTTP: bot/catalog serves it, signs viewers in and loads the
// repositories.
package catalog

import (
	"sort"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/index"
	"github.com/porchbot/porchbot/internal/packages"
)

// RepoRef names a repository the App is installed on.
type RepoRef struct {
	Owner, Name    string
	Private        bool
	InstallationID int64
	DefaultBranch  string
}

// FullName is "owner/name".
func (r RepoRef) FullName() string { return r.Owner + "/" + r.Name }

// Repository is what the catalog knows of one repository: every viewer who
// may read it sees the same, less the downstreams in repositories they
// cannot read (Viewer.Filter).
type Repository struct {
	Ref RepoRef
	// Web is the repository's web URL (no trailing slash).
	Web              string
	DeploymentBranch string
	// Root is packages.root: package name N lives at Root/N.
	Root string
	// IndexSource says where the package list came from: the index
	// branch at a commit, or rebuilt from porchbot's revisions when the
	// branch has no index porchbot signed.
	IndexSource string
	ConfigError string
	Packages    []Package // by name
	Drafts      []Draft   // by package, then workspace
	Proposals   []Proposal
	Loaded      time.Time

	byName map[string]int
}

// Package is one package: its index entry, and what is under way.
type Package struct {
	Name, Description, Site string
	Keywords                []string
	Upstream                *index.Upstream
	Revisions               []index.Revision // newest first
	Downstreams             []Downstream
	// Rollout is the package's rollout in waves, when it has one.
	Rollout   *Rollout
	Drafts    []Draft
	Proposals []Proposal
}

// Latest is the newest revision (zero when none is published).
func (p Package) Latest() int {
	if len(p.Revisions) == 0 {
		return 0
	}
	return p.Revisions[0].Revision
}

// Behind counts the downstreams known to track an older revision.
func (p Package) Behind() int {
	n := 0
	for _, d := range p.Downstreams {
		if d.Behind {
			n++
		}
	}
	return n
}

// Downstream is a package known to track this one.
type Downstream struct {
	Repository, Package string
	Revision            int  // the revision it tracks, 0 when not known
	Behind              bool // Revision is known and older than the latest
}

// Draft is a draft branch drafts/<package>/<workspace>.
type Draft struct {
	Package, Workspace, Branch, Head string
	Checks                           []Check
}

// Proposal is an open pull request labelled porch/proposed.
type Proposal struct {
	Number                int
	Title, Author, Branch string
	Head, URL             string
	Packages              []string
	Checks                []Check
}

// Check is a check run on a head (porchbot/render, porchbot/approval, …).
type Check struct {
	Name, Status, Conclusion, URL string
	// Summary is the first line of the check's output summary.
	Summary string
}

// checkWords say a check's state as people do (GitHub's words).
var checkWords = map[string]string{
	"success": "passed", "failure": "failed", "action_required": "action required", "neutral": "neutral",
	"cancelled": "cancelled", "skipped": "skipped", "timed_out": "timed out", "stale": "stale",
	"queued": "queued", "in_progress": "in progress", "waiting": "waiting", "requested": "requested", "pending": "pending",
}

// Words is State in words ("passed", "action required", …).
func (c Check) Words() string {
	if w, ok := checkWords[c.State()]; ok {
		return w
	}
	return strings.ReplaceAll(c.State(), "_", " ")
}

// State is what a check shows: its conclusion once completed, else its
// status.
func (c Check) State() string {
	if c.Status == "completed" && c.Conclusion != "" {
		return c.Conclusion
	}
	return c.Status
}

// Input is what Build reads: the index and what the bot's cache knows.
type Input struct {
	Ref              RepoRef
	Web              string // the repository's web URL
	DeploymentBranch string
	Root             string
	Index            *index.Index
	IndexSource      string
	ConfigError      string
	Drafts           []Draft
	Proposals        []Proposal
	// Live are downstreams the registry knows now, by package; they are
	// merged with those the index recorded at publish time.
	Live map[string][]Downstream
	// Rollouts are the packages' rollouts in waves, by package.
	Rollouts map[string]*Rollout
	Loaded   time.Time
}

// Build assembles a repository's view.
func Build(in Input) *Repository {
	r := &Repository{Ref: in.Ref, Web: strings.TrimSuffix(in.Web, "/"), DeploymentBranch: in.DeploymentBranch,
		Root: in.Root, IndexSource: in.IndexSource, ConfigError: in.ConfigError, Loaded: in.Loaded,
		byName: map[string]int{}}
	var pkgs []index.Package
	if in.Index != nil {
		pkgs = in.Index.Packages
	}
	for _, ip := range pkgs {
		p := Package{Name: ip.Name, Description: ip.Description, Site: ip.Site, Keywords: ip.Keywords,
			Upstream: ip.Upstream, Revisions: ip.Revisions}
		p.Downstreams = mergeDownstreams(ip, in.Live[ip.Name])
		p.Rollout = in.Rollouts[ip.Name]
		r.add(p)
	}
	r.Drafts = append(r.Drafts, in.Drafts...)
	sort.Slice(r.Drafts, func(i, j int) bool {
		if r.Drafts[i].Package != r.Drafts[j].Package {
			return r.Drafts[i].Package < r.Drafts[j].Package
		}
		return r.Drafts[i].Workspace < r.Drafts[j].Workspace
	})
	for _, d := range r.Drafts {
		r.pkg(d.Package).Drafts = append(r.pkg(d.Package).Drafts, d)
	}
	r.Proposals = append(r.Proposals, in.Proposals...)
	sort.Slice(r.Proposals, func(i, j int) bool { return r.Proposals[i].Number > r.Proposals[j].Number })
	for _, pr := range r.Proposals {
		for _, name := range pr.Packages {
			r.pkg(name).Proposals = append(r.pkg(name).Proposals, pr)
		}
	}
	sort.Slice(r.Packages, func(i, j int) bool { return r.Packages[i].Name < r.Packages[j].Name })
	for i, p := range r.Packages {
		r.byName[p.Name] = i
	}
	return r
}

func (r *Repository) add(p Package) {
	r.byName[p.Name] = len(r.Packages)
	r.Packages = append(r.Packages, p)
}

// pkg is the package named name, added (unpublished) when the index does
// not list it: a draft of a new package.
func (r *Repository) pkg(name string) *Package {
	i, ok := r.byName[name]
	if !ok {
		r.add(Package{Name: name})
		i = len(r.Packages) - 1
	}
	return &r.Packages[i]
}

// Package is the package named name.
func (r *Repository) Package(name string) (*Package, bool) {
	i, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return &r.Packages[i], true
}

// mergeDownstreams joins the downstreams the index recorded with those
// the registry knows now (which win), and marks those behind the latest
// revision.
func mergeDownstreams(p index.Package, live []Downstream) []Downstream {
	latest := 0
	if len(p.Revisions) > 0 {
		latest = p.Revisions[0].Revision
	}
	seen := map[string]int{}
	var out []Downstream
	put := func(d Downstream) {
		key := strings.ToLower(d.Repository) + "\x00" + d.Package
		if i, ok := seen[key]; ok {
			if d.Revision != 0 {
				out[i].Revision = d.Revision
			}
			return
		}
		seen[key] = len(out)
		out = append(out, d)
	}
	for _, d := range p.Downstreams {
		put(Downstream{Repository: d.Repository, Package: d.Package, Revision: d.Revision})
	}
	for _, d := range live {
		put(d)
	}
	for i := range out {
		out[i].Behind = out[i].Revision > 0 && out[i].Revision < latest
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Repository != out[j].Repository {
			return out[i].Repository < out[j].Repository
		}
		return out[i].Package < out[j].Package
	})
	return out
}

// TrackedRevision is the revision of upstream package p a downstream's
// Kptfile tracks: the tag its upstream ref or lock names (<p>/vN), else the
// revision whose commit its lock pins; 0 when neither says.
func TrackedRevision(p index.Package, ref, lockRef, lockCommit string) int {
	for _, r := range []string{lockRef, ref} {
		if name, n, ok := packages.ParseTagName(strings.TrimPrefix(r, "refs/tags/")); ok && name == p.Name {
			return n
		}
	}
	if lockCommit != "" {
		for _, rev := range p.Revisions {
			if rev.Commit == lockCommit {
				return rev.Revision
			}
		}
	}
	return 0
}
