package builtins

import (
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

// sortViolations orders violations as a walk of the resource does: an
// object's own violations before its fields', fields by name,
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
			return 0
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
