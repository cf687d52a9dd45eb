package render

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// hydrateBreadthFirst renders the tree top-down, as kpt v1.0.0-beta.67
// does for a root Kptfile annotated kpt.dev/bfs-rendering: "true". The
// packages run in breadth-first order (the root, its subpackages in kpt's
// order, then theirs); each package's pipeline sees its own resources and
// those of all its descendants, as rendered so far, so a package may change
// its subpackages but never its parent or its siblings. After each
// pipeline, every resource goes back to the package its package-path
// annotation names (one naming no package of the tree is lost, and a
// package none of whose resources came back keeps those it had, as kpt
// has it). The result is every package's resources, in that order.
func (r *renderer) hydrateBreadthFirst(byPkg map[string][]*yaml.RNode) ([]*yaml.RNode, error) {
	order := []*pkgNode{r.rootPkg}
	for i := 0; i < len(order); i++ {
		order = append(order, order[i].subs...)
	}
	r.pkgCount = len(order)
	own := make(map[*pkgNode][]*yaml.RNode, len(order))
	for _, p := range order {
		own[p] = byPkg[p.abs]
	}
	gather := func() []*yaml.RNode {
		var all []*yaml.RNode
		for _, p := range order {
			all = append(all, own[p]...)
		}
		return all
	}
	for _, p := range order {
		r.enterPackage(p)
		input := append([]*yaml.RNode(nil), own[p]...)
		var descend func(*pkgNode)
		descend = func(q *pkgNode) {
			for _, s := range q.subs {
				input = append(input, own[s]...)
				descend(s)
			}
		}
		descend(p)
		out, err := r.runPipeline(p, input, own[p])
		if err != nil {
			if r.saveOnFailure {
				if out == nil {
					out = input
				}
				redistribute(p, out, order, own)
				r.keepPartial(r.rootPkg, gather())
			}
			return nil, err
		}
		redistribute(p, out, order, own)
	}
	return gather(), nil
}

// redistribute gives the resources a package's pipeline returned back to
// the packages they belong to (see hydrateBreadthFirst).
func redistribute(p *pkgNode, out []*yaml.RNode, order []*pkgNode, own map[*pkgNode][]*yaml.RNode) {
	byPath := map[string][]*yaml.RNode{}
	for _, n := range out {
		path, _ := annotation(annotationsOf(n), pkgPathAnnotation)
		if path == "" {
			path = p.abs
		}
		byPath[path] = append(byPath[path], n)
	}
	own[p] = nil
	for _, q := range order {
		if nodes, ok := byPath[q.abs]; ok {
			own[q] = nodes
		}
	}
}
