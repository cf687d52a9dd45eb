package update

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// fastForward refuses any local change (ErrLocalChanges), then replaces the
// package with updated, as kpt's fast-forward does.
func (m *merger) fastForward(rel string, isRoot bool) error {
	local, origin := m.local.sub(rel), m.origin.sub(rel)
	if origin.dirExists() {
		changed, err := localChanges(rel, local, origin)
		if err != nil {
			return err
		}
		if len(changed) > 0 {
			return fmt.Errorf("local package files have been modified: %s (use another update strategy): %w",
				strings.Join(changed, ", "), ErrLocalChanges)
		}
	}
	return m.replace(rel, isRoot)
}

// localChanges lists what local changed from origin: files added, removed
// or changed, in the package and its local subpackages. The root Kptfile
// counts only when it differs in more than upstream, upstreamLock and
// what a render recorded (kpt #4488).
func localChanges(rel string, local, origin tree) ([]string, error) {
	lf, err := local.files()
	if err != nil {
		return nil, err
	}
	of, err := origin.files()
	if err != nil {
		return nil, err
	}
	var changed []string
	for p, lb := range lf {
		ob, ok := of[p]
		switch {
		case !ok:
			changed = append(changed, path.Join(rel, p))
		case string(lb) != string(ob):
			if p == kptfile.FileName {
				same, err := sameKptfileBesidesUpstream(lb, ob)
				if err != nil {
					return nil, err
				}
				if same {
					continue
				}
			}
			changed = append(changed, path.Join(rel, p))
		}
	}
	for p := range of {
		if _, ok := lf[p]; !ok {
			changed = append(changed, path.Join(rel, p))
		}
	}
	sort.Strings(changed)
	return changed, nil
}

func sameKptfileBesidesUpstream(local, origin []byte) (bool, error) {
	var ks [2]*kptfile.Kptfile
	for i, b := range [][]byte{local, origin} {
		f, err := kptfile.Parse(b)
		if err != nil {
			return false, err
		}
		k := *f.Kptfile()
		k.Upstream, k.UpstreamLock = nil, nil
		kptfile.ClearRenderStatus(&k)
		ks[i] = &k
	}
	ks[1].Metadata.Name = ks[0].Metadata.Name
	a, err := kptfile.Marshal(ks[0])
	if err != nil {
		return false, err
	}
	b, err := kptfile.Marshal(ks[1])
	if err != nil {
		return false, err
	}
	return string(a) == string(b), nil
}

// replace is kpt's force-delete-replace: the package and its local
// subpackages get updated's content; local changes are lost (the root's
// Kptfile is kept, with its upstream rewritten).
func (m *merger) replace(rel string, isRoot bool) error {
	local, updated := m.local.sub(rel), m.updated.sub(rel)
	subs, err := subpackages(pkgLocal, true, local, updated)
	if err != nil {
		return err
	}
	for _, sub := range append([]string{"."}, subs...) {
		root := sub == "." && isRoot
		l, u := local.sub(sub), updated.sub(sub)
		own, err := l.ownFiles()
		if err != nil {
			return err
		}
		for _, f := range own {
			if f == kptfile.FileName && root {
				continue
			}
			if err := l.remove(f); err != nil {
				return err
			}
		}
		if !u.dirExists() {
			if err := l.remove("."); err != nil {
				return err
			}
			continue
		}
		if err := copyPackage(u, l, !root, false); err != nil {
			return err
		}
	}
	return nil
}

// copyMerge is kpt's copy-merge: the Kptfile merged, every file of updated
// copied over local (subpackages included), and the files origin had but
// updated no longer has removed; local's other files are kept. Unlike
// kpt, the root package keeps its own upstream (kpt copies the upstream
// package's, which names the upstream's own upstream when it has one).
func (m *merger) copyMerge(rel string, isRoot bool) error {
	local, updated, origin := m.local.sub(rel), m.updated.sub(rel), m.origin.sub(rel)
	if err := m.mergeKptfile(rel, local, updated, origin, !isRoot); err != nil {
		return err
	}
	if err := copyPackage(updated, local, isRoot, true); err != nil {
		return err
	}
	uf, err := updated.files()
	if err != nil {
		return err
	}
	of, err := origin.files()
	if err != nil {
		return err
	}
	for p := range of {
		if _, ok := uf[p]; !ok && local.exists(p) {
			if err := local.remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}
