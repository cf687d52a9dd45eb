package builtins

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// gojsonschema checks a document against a schema as kubeval v0.16.1's
// validator (xeipuuv/gojsonschema of August 2018) does, with its wording,
// its notion of the field each violation is at and its order: at each
// value its type first (a value of the wrong type is not looked into),
// then anyOf/oneOf/allOf/not, then the object's or array's own keywords
// (required in the schema's order, unexpected properties), then enum, then
// the properties the schema names. Where gojsonschema goes through a Go
// map (the schema's properties, the object's keys) its order varies from
// run to run; here it is by name.
type gojsonschema struct {
	root any   // the schema
	err  error // what of the schema porchbot does not check as gojsonschema does
}

// errGojsonschemaUnsupported is a schema porchbot does not check as
// kubeval does.
var errGojsonschemaUnsupported = errors.New("not reproduced")

// A gjsViolation is one of gojsonschema's errors: "field: description".
type gjsViolation struct {
	context  []string // where in the document
	property string   // the property a required or unexpected property error names
	desc     string
}

// field is gojsonschema's Field(): the property an error names, else the
// context without "(root).".
func (v gjsViolation) field() string {
	if v.property != "" {
		return v.property
	}
	if len(v.context) == 0 {
		return "(root)"
	}
	return strings.Join(v.context, ".")
}

func (v gjsViolation) String() string { return v.field() + ": " + v.desc }

// gjsResult collects the violations of one (sub)validation and its score,
// which picks the closest failing branch of anyOf and oneOf.
type gjsResult struct {
	errs  []gjsViolation
	score int
}

func (r *gjsResult) add(ctx []string, property, desc string) {
	r.errs = append(r.errs, gjsViolation{context: slices.Clone(ctx), property: property, desc: desc})
	r.score -= 2
}

func (r *gjsResult) merge(o *gjsResult) {
	r.errs = append(r.errs, o.errs...)
	r.score += o.score
}

// validate checks doc (as kubeval decodes it: gojsonschemaDocument) against
// the schema.
func (g *gojsonschema) validate(doc any) ([]gjsViolation, error) {
	r := &gjsResult{}
	g.recurse(g.root, doc, nil, r)
	return r.errs, g.err
}

func (g *gojsonschema) sub(s, node any, ctx []string) *gjsResult {
	r := &gjsResult{}
	g.recurse(s, node, ctx, r)
	return r
}

// schemaTypes are a schema's types in its order.
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func typesString(ts []string) string {
	if len(ts) == 1 {
		return ts[0]
	}
	return "[" + strings.Join(ts, ",") + "]"
}

func (g *gojsonschema) recurse(schema, node any, ctx []string, r *gjsResult) {
	s, ok := schema.(map[string]any)
	if !ok {
		return // true, or anything that is no schema: everything passes
	}
	if ref, ok := s["$ref"].(string); ok {
		// the schemas porchbot reads are stand-alone
		if g.err == nil {
			g.err = fmt.Errorf("the schema's $ref %s: %w", ref, errGojsonschemaUnsupported)
		}
		return
	}
	types := schemaTypes(s)
	has := func(t string) bool { return slices.Contains(types, t) }
	given := ""
	switch n := node.(type) {
	case nil:
		if len(types) > 0 && !has("null") {
			given = "null"
		}
	case json.Number:
		isInt := numberIsInt(n)
		if len(types) > 0 && !has("number") && !(isInt && has("integer")) {
			given = "number"
			if isInt {
				given = "integer"
			}
		}
	case []any:
		if len(types) > 0 && !has("array") {
			given = "array"
		}
	case map[string]any:
		if len(types) > 0 && !has("object") {
			given = "object"
		}
	case bool:
		if len(types) > 0 && !has("boolean") {
			given = "boolean"
		}
	case string:
		if len(types) > 0 && !has("string") {
			given = "string"
		}
	}
	if given != "" {
		r.add(ctx, "", "Invalid type. Expected: "+typesString(types)+", given: "+given)
		return
	}
	g.combinators(s, node, ctx, r)
	switch n := node.(type) {
	case json.Number:
		g.number(s, n, ctx, r)
		g.common(s, node, ctx, r)
	case []any:
		g.array(s, n, ctx, r)
		g.common(s, node, ctx, r)
	case map[string]any:
		g.object(s, n, ctx, r)
		g.common(s, node, ctx, r)
		props, _ := s["properties"].(map[string]any)
		for _, p := range slices.Sorted(maps.Keys(props)) {
			if v, ok := n[p]; ok {
				g.recurse(props[p], v, append(slices.Clone(ctx), p), r)
			}
		}
	case string:
		g.common(s, node, ctx, r)
		g.str(s, n, ctx, r)
	default:
		g.common(s, node, ctx, r)
	}
	r.score++
}

func (g *gojsonschema) combinators(s map[string]any, node any, ctx []string, r *gjsResult) {
	if anyOf, ok := s["anyOf"].([]any); ok && len(anyOf) > 0 {
		var best *gjsResult
		valid := false
		for _, sub := range anyOf {
			res := g.sub(sub, node, ctx)
			if len(res.errs) == 0 {
				valid = true
				break
			}
			if best == nil || res.score > best.score {
				best = res
			}
		}
		if !valid {
			r.add(ctx, "", "Must validate at least one schema (anyOf)")
			r.merge(best)
		}
	}
	if oneOf, ok := s["oneOf"].([]any); ok && len(oneOf) > 0 {
		var best *gjsResult
		valid := 0
		for _, sub := range oneOf {
			res := g.sub(sub, node, ctx)
			if len(res.errs) == 0 {
				valid++
			} else if valid == 0 && (best == nil || res.score > best.score) {
				best = res
			}
		}
		if valid != 1 {
			r.add(ctx, "", "Must validate one and only one schema (oneOf)")
			if valid == 0 {
				r.merge(best)
			}
		}
	}
	if allOf, ok := s["allOf"].([]any); ok && len(allOf) > 0 {
		valid := 0
		for _, sub := range allOf {
			res := g.sub(sub, node, ctx)
			if len(res.errs) == 0 {
				valid++
			}
			r.merge(res)
		}
		if valid != len(allOf) {
			r.add(ctx, "", "Must validate all the schemas (allOf)")
		}
	}
	if not, ok := s["not"]; ok {
		if res := g.sub(not, node, ctx); len(res.errs) == 0 {
			r.add(ctx, "", "Must not validate the schema (not)")
		}
	}
	for _, k := range []string{"dependencies", "if", "const", "contains", "propertyNames"} {
		if _, ok := s[k]; ok && g.err == nil {
			g.err = fmt.Errorf("the schema's %s: %w", k, errGojsonschemaUnsupported)
		}
	}
	r.score++
}

func (g *gojsonschema) object(s map[string]any, obj map[string]any, ctx []string, r *gjsResult) {
	if n, ok := schemaInt(s["minProperties"]); ok && len(obj) < n {
		r.add(ctx, "", fmt.Sprintf("Must have at least %d properties", n))
	}
	if n, ok := schemaInt(s["maxProperties"]); ok && len(obj) > n {
		r.add(ctx, "", fmt.Sprintf("Must have at most %d properties", n))
	}
	required, _ := s["required"].([]any)
	for _, p := range required {
		name, _ := p.(string)
		if _, ok := obj[name]; ok {
			r.score++
		} else {
			r.add(ctx, name, name+" is required")
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	// patternMatch validates the value of a key against the patterns it
	// matches: whether there are patterns, and whether one matched
	patternMatch := func(key string) (bool, bool) {
		matched := false
		for _, pat := range slices.Sorted(maps.Keys(patterns)) {
			re, err := regexp.Compile(pat)
			if err != nil || !re.MatchString(key) {
				continue
			}
			g.recurse(patterns[pat], obj[key], append(slices.Clone(ctx), key), r)
			matched = true
		}
		if matched {
			r.score++
		}
		return matched, matched
	}
	additional, hasAdditional := s["additionalProperties"]
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		_, named := props[key]
		has, match := patternMatch(key)
		extra := !named && (!has || !match)
		if !hasAdditional || !extra {
			continue
		}
		switch a := additional.(type) {
		case bool:
			if !a {
				r.add(ctx, key, "Additional property "+key+" is not allowed")
			}
		case map[string]any:
			// the value is checked at the object's context, not the key's
			r.merge(g.sub(a, obj[key], ctx))
		}
	}
	r.score++
}

func (g *gojsonschema) array(s map[string]any, arr []any, ctx []string, r *gjsResult) {
	at := func(i int) []string { return append(slices.Clone(ctx), strconv.Itoa(i)) }
	switch items := s["items"].(type) {
	case map[string]any:
		for i, v := range arr {
			r.merge(g.sub(items, v, at(i)))
		}
	case []any:
		for i := 0; i < len(items) && i < len(arr); i++ {
			r.merge(g.sub(items[i], arr[i], at(i)))
		}
		if len(items) < len(arr) {
			switch a := s["additionalItems"].(type) {
			case bool:
				if !a {
					r.add(ctx, "", "No additional items allowed on array")
				}
			case map[string]any:
				for i := len(items); i < len(arr); i++ {
					r.merge(g.sub(a, arr[i], at(i)))
				}
			}
		}
	}
	if n, ok := schemaInt(s["minItems"]); ok && len(arr) < n {
		r.add(ctx, "", fmt.Sprintf("Array must have at least %d items", n))
	}
	if n, ok := schemaInt(s["maxItems"]); ok && len(arr) > n {
		r.add(ctx, "", fmt.Sprintf("Array must have at most %d items", n))
	}
	if unique, _ := s["uniqueItems"].(bool); unique {
		var seen []string
		for _, v := range arr {
			k := normalizedJSON(v)
			if slices.Contains(seen, k) {
				r.add(ctx, "", "array items must be unique")
			}
			seen = append(seen, k)
		}
	}
	r.score++
}

// common is enum: the value's JSON, numbers normalized, among the enum's.
func (g *gojsonschema) common(s map[string]any, node any, ctx []string, r *gjsResult) {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		allowed := make([]string, 0, len(enum))
		for _, e := range enum {
			allowed = append(allowed, normalizedJSON(e))
		}
		if !slices.Contains(allowed, normalizedJSON(node)) {
			r.add(ctx, "", gjsViolation{context: ctx}.field()+" must be one of the following: "+strings.Join(allowed, ", "))
		}
	}
	r.score++
}

func (g *gojsonschema) str(s map[string]any, v string, ctx []string, r *gjsResult) {
	n := utf8.RuneCountInString(v)
	if min, ok := schemaInt(s["minLength"]); ok && n < min {
		r.add(ctx, "", fmt.Sprintf("String length must be greater than or equal to %d", min))
	}
	if max, ok := schemaInt(s["maxLength"]); ok && n > max {
		r.add(ctx, "", fmt.Sprintf("String length must be less than or equal to %d", max))
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			r.add(ctx, "", "Does not match pattern '"+p+"'")
		}
	}
	if f, ok := s["format"].(string); ok {
		valid, known := stringFormat(f, v)
		if known == errGojsonschemaUnsupported && g.err == nil {
			g.err = fmt.Errorf("the schema's format %q: %w", f, errGojsonschemaUnsupported)
		}
		if !valid {
			r.add(ctx, "", "Does not match format '"+f+"'")
		}
	}
	r.score++
}

// stringFormat checks the formats gojsonschema knows when kubeval parses a
// schema (kubeval registers its own, always valid, only afterwards): an
// unknown format is no check.
func stringFormat(format, v string) (bool, error) {
	switch format {
	case "date-time":
		for _, layout := range []string{"15:04:05", "15:04:05Z07:00", "2006-01-02", time.RFC3339, time.RFC3339Nano} {
			if _, err := time.Parse(layout, v); err == nil {
				return true, nil
			}
		}
		return false, nil
	case "ipv4":
		return net.ParseIP(v) != nil && strings.Contains(v, "."), nil
	case "ipv6":
		return net.ParseIP(v) != nil && strings.Contains(v, ":"), nil
	case "uri":
		u, err := url.Parse(v)
		return err == nil && u.Scheme != "", nil
	case "uri-reference":
		_, err := url.Parse(v)
		return err == nil, nil
	case "uuid":
		return uuidFormat.MatchString(v), nil
	case "regex":
		_, err := regexp.Compile(v)
		return v == "" || err == nil, nil
	case "hostname":
		return len(v) < 256 && hostnameFormat.MatchString(v), nil
	case "email":
		return true, errGojsonschemaUnsupported
	}
	return true, nil
}

var (
	uuidFormat     = regexp.MustCompile(`^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$`)
	hostnameLabel  = `([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])`
	hostnameFormat = regexp.MustCompile(`^` + hostnameLabel + `(\.` + hostnameLabel + `)*$`)
)

func (g *gojsonschema) number(s map[string]any, n json.Number, ctx []string, r *gjsResult) {
	v, ok := new(big.Float).SetString(string(n))
	if !ok {
		return
	}
	if m, ok := schemaFloat(s["multipleOf"]); ok && m.Sign() != 0 {
		if q := new(big.Float).Quo(v, m); !q.IsInt() {
			r.add(ctx, "", "Must be a multiple of "+m.Text('g', 10))
		}
	}
	exclusiveMax, _ := s["exclusiveMaximum"].(bool)
	if max, ok := schemaFloat(s["maximum"]); ok {
		if c := v.Cmp(max); exclusiveMax && c >= 0 {
			r.add(ctx, "", "Must be less than "+max.Text('g', 10))
		} else if !exclusiveMax && c > 0 {
			r.add(ctx, "", "Must be less than or equal to "+max.Text('g', 10))
		}
	}
	exclusiveMin, _ := s["exclusiveMinimum"].(bool)
	if min, ok := schemaFloat(s["minimum"]); ok {
		if c := v.Cmp(min); exclusiveMin && c <= 0 {
			r.add(ctx, "", "Must be greater than "+min.Text('g', 10))
		} else if !exclusiveMin && c < 0 {
			r.add(ctx, "", "Must be greater than or equal to "+min.Text('g', 10))
		}
	}
	r.score++
}

func schemaFloat(v any) (*big.Float, bool) {
	switch n := v.(type) {
	case json.Number:
		return new(big.Float).SetString(string(n))
	case float64:
		return big.NewFloat(n), true
	case int:
		return big.NewFloat(float64(n)), true
	case int64:
		return big.NewFloat(float64(n)), true
	}
	return nil, false
}

func schemaInt(v any) (int, bool) {
	f, ok := schemaFloat(v)
	if !ok || !f.IsInt() {
		return 0, false
	}
	i, _ := f.Int64()
	return int(i), true
}

func numberIsInt(n json.Number) bool {
	f, ok := new(big.Float).SetString(string(n))
	return ok && f.IsInt()
}

// normalizedJSON is a value's JSON with its numbers as float64s write
// (gojsonschema's comparison of enum values).
func normalizedJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return ""
	}
	b, _ = json.Marshal(plain)
	return string(b)
}

// gojsonschemaDocument is a resource as kubeval decodes what the
// TypeScript function hands it (JSON.stringify of the object): numbers
// pass through float64, so 1.0 is 1.
func gojsonschemaDocument(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = gojsonschemaDocument(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = gojsonschemaDocument(e)
		}
		return out
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x
		}
		b, _ := json.Marshal(f)
		return json.Number(b)
	}
	return v
}
