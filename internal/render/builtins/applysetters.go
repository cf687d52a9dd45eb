package builtins

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// apply-setters (catalog v0.2): every field whose line comment is
// `# kpt-set: <pattern>` and whose pattern names at least one given setter is
// set to the pattern with `${name}` replaced by the setter values; setters the
// pattern names but the config does not give are recovered from the current
// value. Array fields take a YAML/flow list value. All resources are visited,
// local-config ones included. One result per field set.

const setterCommentPrefix = "# kpt-set: "

var setterRefPattern = regexp.MustCompile(`\$\{([^}]*)\}`)

type setter struct{ name, value string }

type setterResult struct{ filePath, fieldPath, value string }

type setterApplier struct {
	setters  []setter
	results  []setterResult
	filePath string
}

func applySetters(rl *framework.ResourceList) error {
	a := &setterApplier{}
	data := dataMap(rl.FunctionConfig)
	names := make([]string, 0, len(data))
	for k := range data {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		a.setters = append(a.setters, setter{name: k, value: data[k]})
	}
	for _, item := range rl.Items {
		path, _, err := kioutil.GetFileAnnotations(item)
		if err != nil {
			return a.fail(rl, err)
		}
		a.filePath = path
		if err := walkFields(a, item, ""); err != nil {
			return a.fail(rl, err)
		}
	}
	if len(a.results) == 0 {
		rl.Results = append(rl.Results, &framework.Result{Message: "no matches for input setter(s)"})
		return nil
	}
	for _, r := range a.results {
		rl.Results = append(rl.Results, &framework.Result{
			Message: fmt.Sprintf("set field value to %q", r.value),
			Field:   &framework.Field{Path: r.fieldPath},
			File:    &framework.File{Path: r.filePath},
		})
	}
	return nil
}

func (a *setterApplier) fail(rl *framework.ResourceList, err error) error {
	rl.Results = append(rl.Results, result(fmt.Sprintf("failed to apply setters: %s", err.Error()), framework.Error))
	return err
}

// fieldVisitor is called while walking a resource: visitMapping for each
// mapping (before its fields are walked), visitScalar for each scalar value.
type fieldVisitor interface {
	visitMapping(node *yaml.RNode, path string) error
	visitScalar(node *yaml.RNode, path string) error
}

// walkFields walks all values of object depth-first; paths are dot separated
// with `[i]` for list elements and a leading dot.
func walkFields(v fieldVisitor, object *yaml.RNode, p string) error {
	switch object.YNode().Kind {
	case yaml.DocumentNode:
		return walkFields(v, yaml.NewRNode(object.YNode().Content[0]), "")
	case yaml.MappingNode:
		if err := v.visitMapping(object, p); err != nil {
			return err
		}
		return object.VisitFields(func(node *yaml.MapNode) error {
			return walkFields(v, node.Value, p+"."+node.Key.YNode().Value)
		})
	case yaml.SequenceNode:
		elements, err := object.Elements()
		if err != nil {
			return err
		}
		for i := range elements {
			if err := walkFields(v, elements[i], p+fmt.Sprintf("[%d]", i)); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return v.visitScalar(object, p)
	}
	return nil
}

func (a *setterApplier) visitMapping(object *yaml.RNode, path string) error {
	return object.VisitFields(func(node *yaml.MapNode) error {
		if node == nil || node.Key.IsNil() || node.Value.IsNil() {
			return nil
		}
		if node.Value.YNode().Kind != yaml.SequenceNode {
			return nil
		}
		lineComment := node.Key.YNode().LineComment
		if node.Value.YNode().Style == yaml.FlowStyle {
			lineComment = node.Value.YNode().LineComment
		}
		pattern := setterPattern(lineComment)
		if pattern == "" || !a.shouldSet(pattern) {
			return nil
		}
		if !validArraySetterPattern(pattern) {
			return fmt.Errorf("invalid setter pattern for array node: %q", pattern)
		}
		sv := a.value(pattern)
		fieldPath := strings.TrimPrefix(fmt.Sprintf("%s.%s", path, node.Key.YNode().Value), ".")
		if sv == "" {
			node.Value.YNode().Content = []*yaml.Node{}
			node.Value.YNode().Style = yaml.FlowStyle
			node.Value.YNode().LineComment = lineComment
			node.Key.YNode().LineComment = ""
			a.results = append(a.results, setterResult{filePath: a.filePath, fieldPath: fieldPath, value: sv})
			return nil
		}
		rn, err := yaml.Parse(sv)
		if err != nil || rn.YNode().Kind != yaml.SequenceNode {
			return fmt.Errorf("input to array setter must be an array of values, but found %q", sv)
		}
		node.Value.YNode().Content = rn.YNode().Content
		node.Key.YNode().LineComment = lineComment
		node.Value.YNode().Style = yaml.FoldedStyle
		a.results = append(a.results, setterResult{filePath: a.filePath, fieldPath: fieldPath, value: sv})
		return nil
	})
}

func (a *setterApplier) visitScalar(object *yaml.RNode, path string) error {
	if object.IsNil() || object.YNode().Kind != yaml.ScalarNode {
		return nil
	}
	pattern := setterPattern(object.YNode().LineComment)
	if pattern == "" || !a.shouldSet(pattern) {
		return nil
	}
	value := pattern
	for _, s := range a.setters {
		value = strings.ReplaceAll(value, fmt.Sprintf("${%s}", s.name), s.value)
	}
	for name, v := range currentSetterValues(pattern, object.YNode().Value) {
		value = strings.ReplaceAll(value, fmt.Sprintf("${%s}", name), v)
	}
	if urs := setterRefPattern.FindAllString(value, -1); len(urs) > 0 {
		return fmt.Errorf("values for setters %v must be provided", urs)
	}
	object.YNode().Value = value
	if value == "" {
		object.YNode().Style = yaml.DoubleQuotedStyle
	}
	object.YNode().Tag = yaml.NodeTagEmpty
	a.results = append(a.results, setterResult{filePath: a.filePath, fieldPath: strings.TrimPrefix(path, "."), value: value})
	return nil
}

func (a *setterApplier) shouldSet(pattern string) bool {
	for _, s := range a.setters {
		if strings.Contains(pattern, fmt.Sprintf("${%s}", s.name)) {
			return true
		}
	}
	return false
}

func (a *setterApplier) value(pattern string) string {
	name := cleanSetterName(pattern)
	for _, s := range a.setters {
		if s.name == name {
			return s.value
		}
	}
	return ""
}

func setterPattern(lineComment string) string {
	if !strings.HasPrefix(lineComment, setterCommentPrefix) {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(lineComment, setterCommentPrefix))
}

func validArraySetterPattern(pattern string) bool {
	return len(setterRefPattern.FindAllString(pattern, -1)) == 1 &&
		strings.HasPrefix(pattern, "${") && strings.HasSuffix(pattern, "}")
}

func cleanSetterName(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimSuffix(strings.TrimPrefix(s, "${"), "}")
}

// currentSetterValues derives the values of the setters in pattern from the
// current field value, e.g. pattern `${image}:${tag}` and value `nginx:1.25`.
// It gives up (empty map) when the value does not fit the pattern.
func currentSetterValues(pattern, value string) map[string]string {
	res := map[string]string{}
	urs := setterRefPattern.FindAllString(pattern, -1)
	re := regexp.QuoteMeta(pattern)
	for _, name := range urs {
		re = strings.ReplaceAll(re, regexp.QuoteMeta(name), `(?P<x>.*)`)
	}
	r, err := regexp.Compile(re)
	if err != nil {
		return res
	}
	values := r.FindStringSubmatch(value)
	if len(values) == 0 {
		return res
	}
	values = values[1:]
	if len(urs) != len(values) {
		return res
	}
	for i := range values {
		if values[i] == "" {
			return map[string]string{}
		}
		res[cleanSetterName(urs[i])] = values[i]
	}
	return res
}
