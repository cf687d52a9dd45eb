package builtins

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/porchbot/porchbot/internal/render/builtins/sdkapi/setters2"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// maxPatternLen bounds a substitution's pattern as markers are replaced
// (an empty marker puts the value between every two characters).
const maxPatternLen = 1 << 20

// cliExtension is a schema's x-k8s-cli extension, nil without one.
func cliExtension(s *spec.Schema) (*setters2.CliExtension, error) {
	if s == nil || s.Extensions[cliExtensionKey] == nil {
		return nil, nil
	}
	b, err := json.Marshal(s.Extensions[cliExtensionKey])
	if err != nil {
		return nil, err
	}
	ext := &setters2.CliExtension{}
	if err := json.Unmarshal(b, ext); err != nil {
		return nil, err
	}
	return ext, nil
}

// pattern is a substitution's pattern with its markers replaced; visited
// are the substitutions seen so far in this comment (the release's cycle
// check: one met twice is a cycle, even on two branches).
func (w fixWalk) pattern(ext *setters2.CliExtension, visited map[string]bool) (string, error) {
	sub := ext.Substitution
	if strings.Contains(sub.Name, "%") {
		return "", fixRefusal("the substitution name %q holds a %%, which the release reads as a format verb", sub.Name)
	}
	if visited[sub.Name] {
		return "", errors.New("cyclic substitution detected with name " + sub.Name)
	}
	visited[sub.Name] = true
	p := sub.Pattern
	for _, v := range sub.Values {
		if v.Ref == "" {
			return "", errors.New("missing reference on substitution " + sub.Name)
		}
		if w.defs == nil {
			return "", fixRefusal("the substitution %s comes from a comment in a package without openAPI definitions; "+
				"the release resolves its values in its own Kubernetes schema, which porchbot does not hold", sub.Name)
		}
		ref, err := spec.NewRef(v.Ref)
		if err != nil {
			return "", err
		}
		def, err := definition(w.defs, ref)
		if err != nil {
			return "", err
		}
		dext, err := cliExtension(def)
		if err != nil {
			return "", err
		}
		var value string
		switch {
		case dext != nil && dext.Substitution != nil:
			if value, err = w.pattern(dext, visited); err != nil {
				return "", err
			}
		case dext != nil && dext.Setter != nil:
			value = "${" + dext.Setter.Name + "}"
			if enum, ok := dext.Setter.EnumValues[dext.Setter.Value]; ok {
				value = enum
			}
		default:
			return "", fixRefusal("the substitution %s refers to %s, which is neither setter nor substitution; the release panics", sub.Name, v.Ref)
		}
		// an empty marker is replaced before every character and at the end
		n := utf8.RuneCountInString(p) + 1
		if v.Marker != "" {
			n = strings.Count(p, v.Marker)
		}
		if n > 0 && len(value) > maxPatternLen/n {
			return "", fixRefusal("the substitution %s's pattern grows past %d bytes", sub.Name, maxPatternLen)
		}
		p = strings.ReplaceAll(p, v.Marker, value)
		if len(p) > maxPatternLen {
			return "", fixRefusal("the substitution %s's pattern grows past %d bytes", sub.Name, maxPatternLen)
		}
	}
	return p, nil
}
