package builtins

import (
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"
)

// copyCommentsV010 gives to the comments of from where it has none, as
// kyaml v0.10's comment copy did: field by field, list elements matched by
// key where they have one, and otherwise by position, one level deep (the
// element's own comments, not those of its fields).
func copyCommentsV010(from, to *yaml.RNode) error {
	copyNodeComments(from, to)
	_, err := walk.Walker{Sources: []*yaml.RNode{from, to}, Visitor: commentsV010{}, VisitKeysAsScalars: true}.Walk()
	return err
}

type commentsV010 struct{}

func (commentsV010) VisitMap(s walk.Sources, _ *openapi.ResourceSchema) (*yaml.RNode, error) {
	copyNodeComments(s.Dest(), s.Origin())
	return s.Dest(), nil
}

func (commentsV010) VisitScalar(s walk.Sources, _ *openapi.ResourceSchema) (*yaml.RNode, error) {
	to := s.Origin()
	if to != nil && to.Document().Style == yaml.FoldedStyle {
		// as kyaml: a folded scalar is written double-quoted
		to.Document().Style = yaml.DoubleQuotedStyle
	}
	copyNodeComments(s.Dest(), to)
	return s.Dest(), nil
}

func (commentsV010) VisitList(s walk.Sources, _ *openapi.ResourceSchema, _ walk.ListKind) (*yaml.RNode, error) {
	copyNodeComments(s.Dest(), s.Origin())
	if s.Dest() == nil || s.Origin() == nil {
		return s.Dest(), nil
	}
	from, to := s.Dest().Content(), s.Origin().Content()
	for i := 0; i < len(from) && i < len(to); i++ {
		if from[i].Value == to[i].Value {
			copyNodeComments(yaml.NewRNode(from[i]), yaml.NewRNode(to[i]))
		}
	}
	return s.Dest(), nil
}

// copyNodeComments gives to's node from's comments where it has none.
func copyNodeComments(from, to *yaml.RNode) {
	if from == nil || to == nil {
		return
	}
	f, t := from.Document(), to.Document()
	if t.LineComment == "" {
		t.LineComment = f.LineComment
	}
	if t.HeadComment == "" {
		t.HeadComment = f.HeadComment
	}
	if t.FootComment == "" {
		t.FootComment = f.FootComment
	}
}
