package builtins

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// A violation is one result of a schema validator: its message and the
// field it names.
type violation struct {
	msg, field string
	at         []string // the instance location, for ordering
	rank       int      // among the violations of one object
	// afterFields: reported after the violations of the object's fields
	afterFields bool
}

var english = message.NewPrinter(language.English)

// kubeconformViolations are kubeconform's: the top-level causes of the
// validation error (the validator already lifts the causes of a single
// failing field to the top), in jsonschema v6's wording, the field being
// the instance location with dots.
func kubeconformViolations(verr *jsonschema.ValidationError) []violation {
	var out []violation
	for _, c := range verr.Causes {
		_, after := c.ErrorKind.(*kind.AdditionalProperties) // v6 checks them after the fields
		out = append(out, violation{msg: c.ErrorKind.LocalizedString(english),
			field: strings.Join(c.InstanceLocation, "."), at: c.InstanceLocation, afterFields: after})
	}
	sortViolations(out)
	return out
}

// kubevalViolations are kubeval's: every violation, in gojsonschema's
// wording and with its notion of the field (the property, for a missing
// or an unexpected one; "(root)" for the resource itself).
func kubevalViolations(verr *jsonschema.ValidationError) []violation {
	var out []violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, gojsonschemaWording(e)...)
	}
	walk(verr)
	sortViolations(out)
	return out
}

func gojsonschemaWording(e *jsonschema.ValidationError) []violation {
	ctx := "(root)"
	if len(e.InstanceLocation) > 0 {
		ctx = strings.Join(e.InstanceLocation, ".")
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]violation, 0, len(k.Missing))
		for _, p := range k.Missing {
			out = append(out, violation{msg: p + " is required", field: p, at: e.InstanceLocation})
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]violation, 0, len(k.Properties))
		for _, p := range k.Properties {
			out = append(out, violation{msg: "Additional property " + p + " is not allowed", field: p, at: e.InstanceLocation, rank: 1})
		}
		return out
	case *kind.Type:
		return []violation{{msg: "Invalid type. Expected: " + gojsonschemaTypes(k.Want) + ", given: " + k.Got,
			field: ctx, at: e.InstanceLocation, rank: 2}}
	case *kind.Enum:
		allowed := make([]string, 0, len(k.Want))
		for _, w := range k.Want {
			b, _ := json.Marshal(w)
			allowed = append(allowed, string(b))
		}
		return []violation{{msg: ctx + " must be one of the following: " + strings.Join(allowed, ", "),
			field: ctx, at: e.InstanceLocation, rank: 2}}
	}
	return []violation{{msg: e.ErrorKind.LocalizedString(english), field: ctx, at: e.InstanceLocation, rank: 2}}
}

// gojsonschemaTypes writes a schema's types as gojsonschema does: one
// alone, several as [a,b] in the schema's order, which for the
// Kubernetes schemas is the type and then null.
func gojsonschemaTypes(want []string) string {
	if len(want) == 1 {
		return want[0]
	}
	var types []string
	for _, t := range want {
		if t != "null" {
			types = append(types, t)
		}
	}
	if len(types) < len(want) {
		types = append(types, "null")
	}
	return "[" + strings.Join(types, ",") + "]"
}

// sortViolations orders violations as a walk of the resource does: an
// object's own violations (by rank) before its fields', fields by name,
// array items by index. Violations of an object come after its
// fields' when afterFields says so (kubeconform's unexpected properties).
func sortViolations(vs []violation) {
	slices.SortStableFunc(vs, func(a, b violation) int {
		n := min(len(a.at), len(b.at))
		for i := 0; i < n; i++ {
			if a.at[i] != b.at[i] {
				return compareSegments(a.at[i], b.at[i])
			}
		}
		switch {
		case len(a.at) == len(b.at) && a.afterFields != b.afterFields:
			if a.afterFields {
				return 1
			}
			return -1
		case len(a.at) == len(b.at):
			return a.rank - b.rank
		case len(a.at) < len(b.at): // a is at the object, b in a field
			if a.afterFields {
				return 1
			}
			return -1
		default:
			if b.afterFields {
				return -1
			}
			return 1
		}
	})
}

func compareSegments(a, b string) int {
	ia, errA := strconv.Atoi(a)
	ib, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return ia - ib
	}
	return strings.Compare(a, b)
}
