package update

import "sigs.k8s.io/kustomize/kyaml/yaml"

// kyaml's merge walk costs the same for every field, whether or not the
// three sides differ there (it reads a schema from each field's comments
// and compares it by reflection). A field that is the same in the three
// resources — key and value, comments and styles, all the way down — comes
// out of the walk as local's, untouched: such fields are taken out of the
// three maps before the walk and local's put back in their places after
// it, so the walk only visits what differs.
//
// A field is left to the walk when the walk could still change it: a list
// anywhere in it (kyaml drops elements that lack their merge key), an
// empty map, a null, an alias or a string YAML 1.1 reads as another type
// (walkRewrites), or when it is named apiVersion or kind (the walk looks
// the schema up by them).

// walkPruned switches the pruning on; its test merges with and without it.
var walkPruned = true

// prunedMap is one map of local whose same-on-all-sides fields were taken
// out: order is its keys before, pruned the entries taken out, by key.
type prunedMap struct {
	node   *yaml.Node
	order  []string
	pruned map[string][2]*yaml.Node
}

// pruning is what pruneSame took out, to be put back by restore.
type pruning struct {
	local    []prunedMap
	upstream map[*yaml.Node][]*yaml.Node // origin's and updated's maps: their content before
}

// pruneSame takes the fields that are the same in local, origin and
// updated out of the three resources (whose maps it changes in place).
func pruneSame(local, origin, updated *yaml.Node) *pruning {
	p := &pruning{upstream: map[*yaml.Node][]*yaml.Node{}}
	if walkPruned {
		p.prune(local, origin, updated)
	}
	return p
}

func (p *pruning) prune(l, o, u *yaml.Node) {
	if l.Kind != yaml.MappingNode || o.Kind != yaml.MappingNode || u.Kind != yaml.MappingNode {
		return
	}
	li, oi, ui := entries(l), entries(o), entries(u)
	if li == nil || oi == nil || ui == nil {
		return // duplicate keys: left to the walk
	}
	pm := prunedMap{node: l, pruned: map[string][2]*yaml.Node{}}
	for i := 0; i+1 < len(l.Content); i += 2 {
		k := l.Content[i].Value
		pm.order = append(pm.order, k)
		oe, ook := oi[k]
		ue, uok := ui[k]
		if !ook || !uok || k == yaml.APIVersionField || k == yaml.KindField {
			continue
		}
		lk, lv := l.Content[i], l.Content[i+1]
		if equalNodes(lk, oe[0], true, true, nil) && equalNodes(lk, ue[0], true, true, nil) &&
			equalNodes(lv, oe[1], true, true, nil) && equalNodes(lv, ue[1], true, true, nil) && walkKeeps(lv) {
			pm.pruned[k] = [2]*yaml.Node{lk, lv}
			continue
		}
		p.prune(lv, oe[1], ue[1])
	}
	if len(pm.pruned) == 0 {
		return
	}
	p.local = append(p.local, pm)
	l.Content = without(l.Content, pm.pruned)
	for _, m := range []*yaml.Node{o, u} {
		p.upstream[m] = m.Content
		m.Content = without(m.Content, pm.pruned)
	}
}

// entries indexes a map's entries by key; nil when a key repeats.
func entries(m *yaml.Node) map[string][2]*yaml.Node {
	out := make(map[string][2]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if _, dup := out[k]; dup {
			return nil
		}
		out[k] = [2]*yaml.Node{m.Content[i], m.Content[i+1]}
	}
	return out
}

// without is a map's content without the entries whose keys are in drop.
func without(content []*yaml.Node, drop map[string][2]*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, 0, len(content))
	for i := 0; i+1 < len(content); i += 2 {
		if _, ok := drop[content[i].Value]; !ok {
			out = append(out, content[i], content[i+1])
		}
	}
	return out
}

// walkKeeps reports whether the walk gives a value that is the same on all
// sides back as it is: a scalar or a map of such, no list, empty map, null,
// alias or string YAML 1.1 reads as another type.
func walkKeeps(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		return !walkRewrites(n)
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			return false
		}
		for _, c := range n.Content {
			if !walkKeeps(c) {
				return false
			}
		}
		return true
	}
	return false
}

// restore puts origin's and updated's maps back as they were and local's
// pruned fields back into the merged maps (local's, changed in place by
// the walk), each where it was; fields the walk added stay after them.
func (p *pruning) restore() {
	for m, c := range p.upstream {
		m.Content = c
	}
	for _, pm := range p.local {
		now := map[string][2]*yaml.Node{}
		for i := 0; i+1 < len(pm.node.Content); i += 2 {
			now[pm.node.Content[i].Value] = [2]*yaml.Node{pm.node.Content[i], pm.node.Content[i+1]}
		}
		out := make([]*yaml.Node, 0, len(pm.node.Content)+2*len(pm.pruned))
		for _, k := range pm.order {
			if e, ok := pm.pruned[k]; ok {
				out = append(out, e[0], e[1])
			} else if e, ok := now[k]; ok {
				out = append(out, e[0], e[1])
				delete(now, k)
			}
		}
		for i := 0; i+1 < len(pm.node.Content); i += 2 {
			if _, ok := now[pm.node.Content[i].Value]; ok {
				out = append(out, pm.node.Content[i], pm.node.Content[i+1])
			}
		}
		pm.node.Content = out
	}
}
