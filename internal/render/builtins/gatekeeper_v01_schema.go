package builtins

import (
	"slices"
	"strings"
)

// Whether a v0.1 release decodes a template's parameters schema at all
// (v01ConvertSchemas): into apiextensions/v1beta1's JSONSchemaProps, from
// the JSON sigs.k8s.io/yaml makes of the template.

// schemaKinds are the JSON types the fields of apiextensions/v1beta1's
// JSONSchemaProps (Kubernetes 1.19) decode from, by field name in lower
// case (Go's JSON decoding matches names regardless of case): s a string,
// n a number, i an integer, b a boolean, any anything, S a schema, L a
// list of schemas, M a map of schemas, o a schema or a list of them
// (anything else ignored), B a boolean or a schema, D a map of schemas or
// lists of strings, l a list, ls a list of strings, e externalDocs.
var schemaKinds = map[string]string{
	"id": "s", "$schema": "s", "$ref": "s", "description": "s", "type": "s", "format": "s", "title": "s", "pattern": "s",
	"x-kubernetes-list-type": "s", "x-kubernetes-map-type": "s",
	"maximum": "n", "minimum": "n", "multipleof": "n",
	"maxlength": "i", "minlength": "i", "maxitems": "i", "minitems": "i", "maxproperties": "i", "minproperties": "i",
	"exclusivemaximum": "b", "exclusiveminimum": "b", "uniqueitems": "b", "nullable": "b",
	"x-kubernetes-preserve-unknown-fields": "b", "x-kubernetes-embedded-resource": "b", "x-kubernetes-int-or-string": "b",
	"default": "any", "example": "any", "enum": "l", "required": "ls", "x-kubernetes-list-map-keys": "ls",
	"not": "S", "allof": "L", "oneof": "L", "anyof": "L", "properties": "M", "patternproperties": "M", "definitions": "M",
	"items": "o", "additionalproperties": "B", "additionalitems": "B", "dependencies": "D", "externaldocs": "e",
}

// schemaDecodes is whether v decodes as a JSONSchemaProps without error, as
// the release decodes a template: sigs.k8s.io/yaml makes a number or a
// boolean a string where the Go field is one (coerce), except under the
// fields that decode themselves (items, additionalProperties,
// additionalItems, dependencies); a null decodes as nothing.
func schemaDecodes(v any, coerce bool) bool {
	if v == nil {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, f := range m {
		if f != nil && !fieldDecodes(schemaKinds[strings.ToLower(k)], f, coerce) {
			return false
		}
	}
	return true
}

func fieldDecodes(kind string, f any, coerce bool) bool {
	each := func(l any, ok func(any) bool) bool {
		switch t := l.(type) {
		case []any:
			return !slices.ContainsFunc(t, func(e any) bool { return e != nil && !ok(e) })
		case map[string]any:
			for _, e := range t {
				if e != nil && !ok(e) {
					return false
				}
			}
			return true
		}
		return false
	}
	isString := func(e any) bool {
		switch e.(type) {
		case string:
			return true
		case int64, float64, bool:
			return coerce
		}
		return false
	}
	schema := func(e any) bool { return schemaDecodes(e, coerce) }
	strict := func(e any) bool { return schemaDecodes(e, false) }
	_, isList := f.([]any)
	_, isMap := f.(map[string]any)
	switch kind {
	case "s":
		return isString(f)
	case "n", "i":
		_, isInt := f.(int64)
		_, isFloat := f.(float64)
		return isInt || kind == "n" && isFloat
	case "b":
		_, ok := f.(bool)
		return ok
	case "l":
		return isList
	case "ls":
		return isList && each(f, isString)
	case "L":
		return isList && each(f, schema)
	case "S":
		return schema(f)
	case "M":
		return isMap && each(f, schema)
	case "o":
		return !isMap && !isList || isMap && strict(f) || isList && each(f, strict)
	case "B":
		_, isBool := f.(bool)
		return isBool || isMap && strict(f)
	case "D":
		return isMap && each(f, func(e any) bool {
			if l, ok := e.([]any); ok {
				return each(l, func(s any) bool { _, ok := s.(string); return ok })
			}
			return fieldDecodes("o", e, false)
		})
	case "e":
		for k, e := range mapOf(f) {
			if k := strings.ToLower(k); e != nil && (k == "description" || k == "url") && !isString(e) {
				return false
			}
		}
		return isMap
	}
	return true // a field it does not have, or any JSON
}
