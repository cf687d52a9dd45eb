package builtins

import (
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// jsyamlStyle gives a resource the styles js-yaml 3's safeDump writes it
// with (the TypeScript SDK of kubeval's releases writes its output so, and
// kpt keeps the styles): block mappings and sequences; a string plain
// unless js-yaml would read it as something else or it has a character a
// plain scalar cannot have, then single-quoted (a key too), a multi-line
// one as a literal block, one with an unprintable character double-quoted;
// integers in decimal, booleans and nulls in lower case. Floats and
// timestamps keep their text (js-yaml writes them as JavaScript does).
func jsyamlStyle(n *yaml.Node, key bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			jsyamlStyle(c, false)
		}
	case yaml.MappingNode:
		n.Style = 0
		for i, c := range n.Content {
			jsyamlStyle(c, i%2 == 0)
		}
	case yaml.SequenceNode:
		n.Style = 0
		for _, c := range n.Content {
			jsyamlStyle(c, false)
		}
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case yaml.NodeTagString:
			n.Style = jsyamlStringStyle(n.Value, key)
		case yaml.NodeTagInt:
			if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
				n.Value, n.Style = strconv.FormatInt(i, 10), 0
			}
		case yaml.NodeTagBool:
			n.Value, n.Style = strings.ToLower(n.Value), 0
		case yaml.NodeTagNull:
			n.Value, n.Style = "null", 0
		}
	}
}

// jsyamlOldBooleans are written quoted for YAML 1.1 readers.
var jsyamlOldBooleans = map[string]bool{"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true,
	"ON": true, "n": true, "N": true, "no": true, "No": true, "NO": true, "off": true, "Off": true, "OFF": true}

func jsyamlStringStyle(s string, key bool) yaml.Style {
	if s == "" || jsyamlOldBooleans[s] {
		return yaml.SingleQuotedStyle
	}
	runes := []rune(s)
	plain := jsyamlPlainFirst(runes[0]) && !jsyamlSpace(runes[len(runes)-1])
	lineBreak := false
	for i, c := range runes {
		if c == '\n' && !key {
			lineBreak = true
		} else if !jsyamlPrintable(c) {
			return yaml.DoubleQuotedStyle
		}
		plain = plain && jsyamlPlainSafe(c, i > 0 && jsyamlNsChar(runes[i-1]))
	}
	if lineBreak {
		return yaml.LiteralStyle
	}
	if plain && !jsyamlImplicit(s) {
		return 0
	}
	return yaml.SingleQuotedStyle
}

func jsyamlPrintable(c rune) bool {
	return (c >= 0x20 && c <= 0x7e) || (c >= 0xa1 && c <= 0xd7ff && c != 0x2028 && c != 0x2029) ||
		(c >= 0xe000 && c <= 0xfffd && c != 0xfeff) || (c >= 0x10000 && c <= 0x10ffff)
}

func jsyamlSpace(c rune) bool { return c == ' ' || c == '\t' }

func jsyamlNsChar(c rune) bool {
	return jsyamlPrintable(c) && !jsyamlSpace(c) && c != 0xfeff && c != '\r' && c != '\n'
}

func jsyamlPlainSafe(c rune, afterNsChar bool) bool {
	return jsyamlPrintable(c) && c != 0xfeff && !strings.ContainsRune(",[]{}:", c) && (c != '#' || afterNsChar)
}

func jsyamlPlainFirst(c rune) bool {
	return jsyamlPrintable(c) && c != 0xfeff && !jsyamlSpace(c) && !strings.ContainsRune("-?:,[]{}#&*!|=>'\"%@`", c)
}

// jsyamlImplicit: js-yaml would read the plain text as a null, boolean,
// integer, float, timestamp or merge key.
func jsyamlImplicit(s string) bool {
	switch s {
	case "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "<<":
		return true
	}
	return jsyamlInt.MatchString(s) && !strings.HasSuffix(s, "_") || jsyamlFloat.MatchString(s) && !strings.HasSuffix(s, "_") ||
		jsyamlDate.MatchString(s) || jsyamlTimestamp.MatchString(s)
}

var (
	jsyamlInt = regexp.MustCompile(`^[-+]?(0b[01_]*[01][01_]*|0x[0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*|0[0-7_]*|` +
		`[1-9][0-9_]*(:[0-5]?[0-9])*)$`)
	jsyamlFloat = regexp.MustCompile(`^(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?` +
		`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	jsyamlDate      = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	jsyamlTimestamp = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?` +
		`(?:[ \t]*(Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?$`)
)
