package update

import (
	"bytes"
	"fmt"
	"path"
	"reflect"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// resourceMerge is kpt's default strategy: the package and each of its
// local subpackages (parents first) are merged on their own — the Kptfile
// by kptfile.Merge3, the resources field by field, the other files whole.
func (m *merger) resourceMerge(rel string, isRoot bool) error {
	local, updated, origin := m.local.sub(rel), m.updated.sub(rel), m.origin.sub(rel)
	if !isRoot {
		changed, err := upstreamChanged(local, origin)
		if err != nil || changed {
			// the local copy was pointed at another upstream: leave it
			return err
		}
	}
	subs, err := subpackages(pkgLocal, true, local, updated, origin)
	if err != nil {
		return err
	}
	for _, sub := range append([]string{"."}, subs...) {
		if err := m.resourceMergePackage(path.Join(rel, sub), sub == "." && isRoot); err != nil {
			return err
		}
	}
	return nil
}

// upstreamChanged reports whether the local package's upstream differs
// from origin's.
func upstreamChanged(local, origin tree) (bool, error) {
	lk, _, err := local.readKptfile()
	if err != nil {
		return false, err
	}
	ok, _, err := origin.readKptfile()
	if err != nil {
		return false, err
	}
	return !reflect.DeepEqual(gitOf(lk), gitOf(ok)), nil
}

func gitOf(k *kptfile.Kptfile) *kptfile.Git {
	if k == nil || k.Upstream == nil {
		return nil
	}
	return k.Upstream.Git
}

// resourceMergePackage merges one (sub)package, by whether it exists in
// origin, updated and local.
func (m *merger) resourceMergePackage(rel string, isRoot bool) error {
	local, updated, origin := m.local.sub(rel), m.updated.sub(rel), m.origin.sub(rel)
	le, ue, oe := local.dirExists(), updated.dirExists(), origin.dirExists()
	switch {
	case !oe && le && ue:
		return fmt.Errorf("subpackage %q added in both upstream and local", rel)
	case !oe && !le && ue:
		m.upstreamTrees()
		return copyPackage(updated, local, !isRoot, false)
	case !oe && le && !ue, oe && !le:
		return nil // added locally; deleted locally (not brought back)
	case oe && le && !ue:
		m.upstreamTrees()
		same, err := sameTrees(origin, local)
		if err != nil || !same {
			return err // changed locally: kept
		}
		return local.remove(".")
	}
	return m.mergePackage(rel, isRoot)
}

// mergePackage merges the Kptfile, the resources and the other files of one
// package present in all three trees.
func (m *merger) mergePackage(rel string, isRoot bool) error {
	local, updated, origin := m.local.sub(rel), m.updated.sub(rel), m.origin.sub(rel)
	if err := m.mergeKptfile(rel, local, updated, origin, !isRoot); err != nil {
		return err
	}
	if err := m.mergeResources(rel, local, updated, origin); err != nil {
		return fmt.Errorf("%s: %w", pkgLabel(rel), err)
	}
	return replaceOtherFiles(local, updated, origin)
}

func pkgLabel(rel string) string {
	if rel == "." || rel == "" {
		return "package"
	}
	return "subpackage " + rel
}

// mergeKptfile merges local's Kptfile from origin's to updated's; with
// withUpstream, updated's upstream and upstreamLock are taken (a
// subpackage follows its upstream's).
func (m *merger) mergeKptfile(rel string, local, updated, origin tree, withUpstream bool) error {
	var ks [3]*kptfile.Kptfile
	for i, t := range []tree{local, updated, origin} {
		k, _, err := t.readKptfile()
		if err != nil {
			return err
		}
		ks[i] = k
	}
	v := &conflictVisitor{side: m.side}
	var ud, od *yaml.RNode
	merged, err := kptfile.Merge3(ks[0], ks[1], ks[2], func(u, o *yaml.RNode) walk.Visitor {
		ud, od = u, o
		return v
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path.Join(rel, kptfile.FileName), err)
	}
	name := merged.Metadata.Name
	m.conflicts = append(m.conflicts, v.resolve(path.Join(rel, kptfile.FileName),
		strings.TrimSpace(kptfile.APIVersion+" "+kptfile.Kind+" "+name), ud, od, notMergedKptfileField)...)
	if withUpstream && ks[1] != nil {
		if ks[1].Upstream != nil {
			merged.Upstream = ks[1].Upstream
		}
		if ks[1].UpstreamLock != nil {
			merged.UpstreamLock = ks[1].UpstreamLock
		}
	}
	return local.writeKptfile(merged)
}

// notMergedKptfileField: the Kptfile fields kpt does not merge (local's
// are kept).
func notMergedKptfileField(field string) bool {
	for _, p := range []string{"apiVersion", "kind", "metadata.name", "metadata.namespace", "upstream", "upstreamLock"} {
		if field == p || strings.HasPrefix(field, p+".") {
			return true
		}
	}
	return false
}

// isKRMFile: the Kptfile and YAML files are merged; everything else is a
// whole file.
func isKRMFile(p string) bool {
	b := path.Base(p)
	return b == kptfile.FileName || strings.HasSuffix(b, ".yaml") || strings.HasSuffix(b, ".yml")
}

// otherFiles lists the package's own non-KRM files (kpt also leaves out
// any path containing ".git").
func otherFiles(t tree) (map[string]bool, error) {
	own, err := t.ownFiles()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, f := range own {
		if !isKRMFile(f) && !strings.Contains("/"+f, ".git") {
			out[f] = true
		}
	}
	return out, nil
}

// replaceOtherFiles updates the non-KRM files as kpt does: a file local
// did not touch follows updated (changed, added or removed); a file local
// added or changed is kept as it is.
func replaceOtherFiles(local, updated, origin tree) error {
	uf, err := otherFiles(updated)
	if err != nil {
		return err
	}
	of, err := otherFiles(origin)
	if err != nil {
		return err
	}
	lf, err := otherFiles(local)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for f := range lf {
		if !of[f] {
			keep[f] = true
			continue
		}
		lb, err := local.read(f)
		if err != nil {
			return err
		}
		ob, err := origin.read(f)
		if err != nil {
			return err
		}
		if !bytes.Equal(lb, ob) {
			keep[f] = true
			continue
		}
		if !uf[f] {
			if err := local.remove(f); err != nil {
				return err
			}
		}
	}
	for f := range uf {
		if keep[f] {
			continue
		}
		b, err := updated.read(f)
		if err != nil {
			return err
		}
		if err := local.write(f, b); err != nil {
			return err
		}
	}
	return nil
}

// copyPackage copies the package at src into dst: its own files (the root
// Kptfile only with withKptfile, and never over an existing one), and with
// withSubpackages its subpackages too.
func copyPackage(src, dst tree, withKptfile, withSubpackages bool) error {
	files := src.ownFiles
	if withSubpackages {
		files = src.walk
	}
	list, err := files()
	if err != nil {
		return err
	}
	for _, f := range list {
		if f == kptfile.FileName && (!withKptfile || dst.exists(f)) {
			continue
		}
		b, err := src.read(f)
		if err != nil {
			return err
		}
		if err := dst.write(f, b); err != nil {
			return err
		}
	}
	return nil
}

// sameTrees reports whether two trees hold the same files with the same
// bytes.
func sameTrees(a, b tree) (bool, error) {
	af, err := a.files()
	if err != nil {
		return false, err
	}
	bf, err := b.files()
	if err != nil {
		return false, err
	}
	if len(af) != len(bf) {
		return false, nil
	}
	for p, x := range af {
		y, ok := bf[p]
		if !ok || !bytes.Equal(x, y) {
			return false, nil
		}
	}
	return true, nil
}
