package kptfile

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// root is the top-level mapping of a document being edited.
func root(doc *yaml.RNode) *yaml.Node { return doc.YNode() }

// SetName sets metadata.name.
func (f *File) SetName(name string) error {
	if name == "" {
		return errors.New("kptfile: the name must not be empty")
	}
	if f.k.Metadata.Name == name {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		md := ensure(root(doc), "metadata", yaml.MappingNode, topFields)
		setString(md, "name", name, metadataFields)
		return nil
	})
}

// SetAnnotation sets metadata.annotations[key].
func (f *File) SetAnnotation(key, value string) error {
	return f.setMeta("annotations", key, value)
}

// SetLabel sets metadata.labels[key].
func (f *File) SetLabel(key, value string) error {
	return f.setMeta("labels", key, value)
}

func (f *File) setMeta(which, key, value string) error {
	if key == "" {
		return fmt.Errorf("kptfile: empty %s key", which)
	}
	cur := f.k.Metadata.Labels
	if which == "annotations" {
		cur = f.k.Metadata.Annotations
	}
	if v, ok := cur[key]; ok && v == value {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		md := ensure(root(doc), "metadata", yaml.MappingNode, topFields)
		m := ensure(md, which, yaml.MappingNode, metadataFields)
		if old := lookup(m, key); old != nil && old.Kind == yaml.ScalarNode {
			old.Value, old.Tag, old.Style = value, "!!str", 0
			return nil
		}
		m.Content = append(m.Content, strNode(key), strNode(value))
		return nil
	})
}

// SetDescription sets info.description ("" removes it, and info if nothing
// else is left in it).
func (f *File) SetDescription(d string) error {
	if f.Description() == d {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		info := ensure(root(doc), "info", yaml.MappingNode, topFields)
		setString(info, "description", d, infoFields)
		removeIfEmpty(root(doc), "info")
		return nil
	})
}

// SetUpstream writes upstream as kpt does (type, git {repo, directory, ref},
// updateStrategy), changing existing fields in place; an empty Type with a
// Git locator means git. nil removes upstream.
func (f *File) SetUpstream(u *Upstream) error {
	if u != nil && u.Type == "" && u.Git != nil {
		c := *u
		c.Type = OriginGit
		u = &c
	}
	if reflect.DeepEqual(f.k.Upstream, u) {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		top := root(doc)
		if u == nil {
			removeField(top, "upstream")
			return nil
		}
		up := ensure(top, "upstream", yaml.MappingNode, topFields)
		setString(up, "type", u.Type, upstreamFields) // Type defaulted above
		if u.Git == nil {
			removeField(up, "git")
		} else {
			g := ensure(up, "git", yaml.MappingNode, upstreamFields)
			setString(g, "repo", u.Git.Repo, gitFields)
			setString(g, "directory", u.Git.Directory, gitFields)
			setString(g, "ref", u.Git.Ref, gitFields)
		}
		setString(up, "updateStrategy", u.UpdateStrategy, upstreamFields)
		return nil
	})
}

// SetUpstreamLock writes upstreamLock as kpt does (type, git {repo,
// directory, ref, commit}); an empty Type with a Git lock means git. nil
// removes upstreamLock.
func (f *File) SetUpstreamLock(l *UpstreamLock) error {
	if l != nil && l.Type == "" && l.Git != nil {
		c := *l
		c.Type = OriginGit
		l = &c
	}
	if reflect.DeepEqual(f.k.UpstreamLock, l) {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		top := root(doc)
		if l == nil {
			removeField(top, "upstreamLock")
			return nil
		}
		lock := ensure(top, "upstreamLock", yaml.MappingNode, topFields)
		setString(lock, "type", l.Type, upstreamLockFields) // Type defaulted above
		if l.Git == nil {
			removeField(lock, "git")
		} else {
			g := ensure(lock, "git", yaml.MappingNode, upstreamLockFields)
			setString(g, "repo", l.Git.Repo, gitLockFields)
			setString(g, "directory", l.Git.Directory, gitLockFields)
			setString(g, "ref", l.Git.Ref, gitLockFields)
			setString(g, "commit", l.Git.Commit, gitLockFields)
		}
		return nil
	})
}

// AddReadinessGate appends {conditionType: ct} to info.readinessGates unless
// it is there already.
func (f *File) AddReadinessGate(ct string) error {
	if ct == "" {
		return errors.New("kptfile: empty readiness gate condition type")
	}
	if f.k.Info != nil && slices.Contains(f.k.Info.ReadinessGates, ReadinessGate{ConditionType: ct}) {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		info := ensure(root(doc), "info", yaml.MappingNode, topFields)
		gates := ensure(info, "readinessGates", yaml.SequenceNode, infoFields)
		g := mapNode()
		g.Content = append(g.Content, strNode("conditionType"), strNode(ct))
		gates.Content = append(gates.Content, g)
		return nil
	})
}

// RemoveReadinessGate removes the readiness gate ct, if present.
func (f *File) RemoveReadinessGate(ct string) error {
	if f.k.Info == nil || !slices.Contains(f.k.Info.ReadinessGates, ReadinessGate{ConditionType: ct}) {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		info := lookup(root(doc), "info")
		gates := lookup(info, "readinessGates")
		gates.Content = slices.DeleteFunc(gates.Content, func(n *yaml.Node) bool {
			v := lookup(n, "conditionType")
			return v != nil && v.Value == ct
		})
		removeIfEmpty(info, "readinessGates")
		return nil
	})
}

// SetCondition sets the condition of c.Type in status.conditions (changing
// it in place, or appending it).
func (f *File) SetCondition(c Condition) error {
	if c.Type == "" {
		return errors.New("kptfile: empty condition type")
	}
	if old, ok := f.k.Status.Condition(c.Type); ok && old == c {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		st := ensure(root(doc), "status", yaml.MappingNode, topFields)
		conds := ensure(st, "conditions", yaml.SequenceNode, statusFields)
		var target *yaml.Node
		for _, n := range conds.Content {
			if v := lookup(n, "type"); n.Kind == yaml.MappingNode && v != nil && v.Value == c.Type {
				target = n
				break
			}
		}
		if target == nil {
			target = mapNode()
			conds.Content = append(conds.Content, target)
		}
		setString(target, "type", c.Type, conditionFields)
		setString(target, "status", c.Status, conditionFields)
		setString(target, "reason", c.Reason, conditionFields)
		setString(target, "message", c.Message, conditionFields)
		return nil
	})
}

// PrependPipeline puts p's mutators and validators before the package's
// own (as a PackageVariant's pipeline is prepended downstream).
func (f *File) PrependPipeline(p Pipeline) error {
	if len(p.Mutators) == 0 && len(p.Validators) == 0 {
		return nil
	}
	return f.Edit(func(doc *yaml.RNode) error {
		pl := ensure(root(doc), "pipeline", yaml.MappingNode, topFields)
		for _, part := range []struct {
			key string
			fns []Function
		}{{"mutators", p.Mutators}, {"validators", p.Validators}} {
			if len(part.fns) == 0 {
				continue
			}
			seq := ensure(pl, part.key, yaml.SequenceNode, pipelineFields)
			nodes := make([]*yaml.Node, 0, len(part.fns))
			for _, fn := range part.fns {
				var n yaml.Node
				if err := n.Encode(fn); err != nil {
					return fmt.Errorf("kptfile: encode function %s%s: %w", fn.Image, fn.Exec, err)
				}
				nodes = append(nodes, &n)
			}
			seq.Content = slices.Insert(seq.Content, 0, nodes...)
		}
		return nil
	})
}
