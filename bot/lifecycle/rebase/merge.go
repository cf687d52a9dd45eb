package rebase

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/treediff"
	"github.com/porchbot/porchbot/internal/update"
)

// Trees are the three package trees of one draft's rebase (paths relative
// to the package directory).
type Trees struct {
	// Origin is the package at the draft's fork point, Updated at the
	// published revision, Local on the draft.
	Origin, Updated, Local update.Files
}

// Merged is the rebased package of one draft.
type Merged struct {
	// Files is the new package (nil with conflicts).
	Files update.Files
	// Conflicts are the fields both sides changed to different values:
	// nothing is to be pushed.
	Conflicts []update.Conflict
	// Changed: Files differ from Local.
	Changed bool
	// Resolved lists the files both sides changed, merged resource by
	// resource (the others are taken whole from the side that changed them).
	Resolved []string
}

// Merge rebases Local from Origin onto Updated. A file only one side
// changed is taken whole from that side, byte for byte (the draft's
// formatting and comments stay, the revision's files come as published);
// a file both sides changed is merged by update.Merge (resource-merge,
// conflicts reported, never resolved), and the bookkeeping kpt adds for
// an upstream link (merge comments, upstream identifiers) is taken out of
// it again when neither side had it. Within the Kptfile, an upstream
// link the revision moved and the draft kept moves with the revision.
func Merge(t Trees) (Merged, error) {
	out := update.Files{}
	var both []string
	for _, p := range unionPaths(t.Origin, t.Updated, t.Local) {
		o, oOK := t.Origin[p]
		u, uOK := t.Updated[p]
		l, lOK := t.Local[p]
		switch {
		case same(l, lOK, o, oOK): // only the revision changed it (or nobody)
			if uOK {
				out[p] = u
			}
		case same(u, uOK, o, oOK) || same(l, lOK, u, uOK): // only the draft, or both alike
			if lOK {
				out[p] = l
			}
		default:
			both = append(both, p)
		}
	}
	res := Merged{Resolved: both}
	if len(both) > 0 {
		merged, conflicts, err := mergeFiles(t, both)
		if err != nil {
			return Merged{}, err
		}
		if len(conflicts) > 0 {
			res.Conflicts = conflicts
			return res, nil
		}
		for p, b := range merged {
			out[p] = b
		}
	}
	res.Files = out
	res.Changed = !treediff.Files(t.Local, out).Empty()
	return res, nil
}

// mergeFiles merges the three trees with update.Merge and returns the
// files of paths as merged, or the conflicts.
func mergeFiles(t Trees, paths []string) (update.Files, []update.Conflict, error) {
	opts := update.Options{OnConflict: update.SideFail}
	var conflicts []update.Conflict
	if slices.Contains(paths, kptfile.FileName) {
		var err error
		if conflicts, err = upstreamOptions(t, &opts); err != nil {
			return nil, nil, err
		}
	}
	res, err := update.Merge(t.Origin, t.Updated, t.Local, opts)
	conflicts = append(conflicts, res.Conflicts...)
	if errors.Is(err, update.ErrConflicts) || len(conflicts) > 0 {
		return nil, conflicts, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("merge: %w", err)
	}
	out := update.Files{}
	for _, p := range paths {
		b, ok := res.Files[p]
		if !ok {
			continue
		}
		if !update.HasBookkeeping(t.Local[p]) && !update.HasBookkeeping(t.Updated[p]) {
			if b, err = update.WithoutBookkeeping(b); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p, err)
			}
		}
		out[p] = b
	}
	return out, nil, nil
}

// upstreamOptions sets what update.Merge writes as the merged Kptfile's
// upstream: Merge keeps the local one, which is right when the draft
// changed it or nobody did; when only the revision did (an update
// landed), the revision's. Both changing it differently is a conflict. A
// draft whose Kptfile asks for another update strategy than
// resource-merge cannot be merged resource by resource without
// recording an override: refused.
func upstreamOptions(t Trees, opts *update.Options) ([]update.Conflict, error) {
	o, u, l := kptfileOf(t.Origin), kptfileOf(t.Updated), kptfileOf(t.Local)
	if l == nil || o == nil || u == nil {
		return nil, nil // update.Merge names what does not parse
	}
	if l.Upstream != nil && l.Upstream.UpdateStrategy != "" && l.Upstream.UpdateStrategy != kptfile.ResourceMerge {
		return nil, fmt.Errorf("the draft's Kptfile sets upstream.updateStrategy %s, and both sides changed the Kptfile", l.Upstream.UpdateStrategy)
	}
	lOrigin := reflect.DeepEqual(link(l), link(o))
	uOrigin := reflect.DeepEqual(link(u), link(o))
	switch {
	case uOrigin || reflect.DeepEqual(link(l), link(u)):
		return nil, nil
	case !lOrigin:
		return []update.Conflict{{File: kptfile.FileName, Resource: "Kptfile", Field: "upstreamLock",
			Local: lockString(l), Upstream: lockString(u)}}, nil
	case u.UpstreamLock != nil && u.UpstreamLock.Git != nil && l.Upstream != nil && l.Upstream.Git != nil:
		lock := *u.UpstreamLock.Git
		opts.Lock = &lock
		if u.Upstream != nil && u.Upstream.Git != nil {
			opts.Ref = u.Upstream.Git.Ref
		}
		return nil, nil
	}
	return []update.Conflict{{File: kptfile.FileName, Resource: "Kptfile", Field: "upstream",
		Local: lockString(l), Upstream: lockString(u)}}, nil
}

// upstreamLink is a Kptfile's link to its own upstream.
type upstreamLink struct {
	Upstream *kptfile.Upstream
	Lock     *kptfile.UpstreamLock
}

func link(k *kptfile.Kptfile) upstreamLink {
	return upstreamLink{Upstream: k.Upstream, Lock: k.UpstreamLock}
}

func lockString(k *kptfile.Kptfile) string {
	if k.UpstreamLock == nil || k.UpstreamLock.Git == nil {
		return ""
	}
	g := k.UpstreamLock.Git
	return g.Repo + g.Directory + "@" + g.Ref
}

// kptfileOf parses a tree's root Kptfile (nil when absent or unreadable).
func kptfileOf(files update.Files) *kptfile.Kptfile {
	b, ok := files[kptfile.FileName]
	if !ok {
		return nil
	}
	f, err := kptfile.Parse(b)
	if err != nil {
		return nil
	}
	return f.Kptfile()
}

func same(a []byte, aOK bool, b []byte, bOK bool) bool {
	return aOK == bOK && bytes.Equal(a, b)
}

func unionPaths(trees ...update.Files) []string {
	all := map[string]bool{}
	for _, t := range trees {
		for p := range t {
			all[p] = true
		}
	}
	return core.SortedPaths(all)
}
