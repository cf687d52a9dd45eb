package catalog

import "strings"

// Viewer is who looks at the catalog: their login and the repositories
// they can read on GitHub. The catalog shows nobody what they could not
// read there: repositories they cannot read are absent (not "forbidden":
// absent, as GitHub answers 404), and so are the downstream packages that
// live in them.
type Viewer struct {
	Login string
	// CanRead says whether the viewer can read owner/name on GitHub.
	CanRead func(fullName string) bool
}

func (v Viewer) reads(fullName string) bool { return v.CanRead != nil && v.CanRead(fullName) }

// Visible is the repositories of refs the viewer can read, in order.
func (v Viewer) Visible(refs []RepoRef) []RepoRef {
	out := make([]RepoRef, 0, len(refs))
	for _, r := range refs {
		if v.reads(r.FullName()) {
			out = append(out, r)
		}
	}
	return out
}

// Filter is r as the viewer may see it: nil when they cannot read it, and
// without the downstreams in repositories they cannot read (those a
// package's rollout counts included). r itself, shared by every viewer,
// is left as it is.
func (v Viewer) Filter(r *Repository) *Repository {
	if r == nil || !v.reads(r.Ref.FullName()) {
		return nil
	}
	cp := *r
	cp.Packages = make([]Package, len(r.Packages))
	copy(cp.Packages, r.Packages)
	verdicts := map[string]bool{}
	reads := func(repo string) bool {
		key := strings.ToLower(repo)
		ok, seen := verdicts[key]
		if !seen {
			ok = v.reads(repo)
			verdicts[key] = ok
		}
		return ok
	}
	for i, p := range cp.Packages {
		cp.Packages[i].Rollout = filterRollout(p.Rollout, reads)
		if len(p.Downstreams) == 0 {
			continue
		}
		kept := make([]Downstream, 0, len(p.Downstreams))
		for _, d := range p.Downstreams {
			if reads(d.Repository) {
				kept = append(kept, d)
			}
		}
		cp.Packages[i].Downstreams = kept
	}
	return &cp
}
