package openapi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/porchbot/porchbot/internal/forge"
)

// ExtractREST keeps, of a REST description, the operations answering for
// routes (their operationId and responses, examples left out) and the
// components they reference. It also returns the routes no operation
// answers for.
func ExtractREST(doc map[string]any, routes []forge.Route) (map[string]any, []forge.Route, error) {
	paths, _ := doc["paths"].(map[string]any)
	if paths == nil {
		return nil, nil, fmt.Errorf("description has no paths")
	}
	outPaths := map[string]any{}
	var missing []forge.Route
	for _, r := range routes {
		p, m, ok := Operation(paths, r)
		if !ok {
			missing = append(missing, r)
			continue
		}
		op, _ := paths[p].(map[string]any)[m].(map[string]any)
		kept := map[string]any{"operationId": op["operationId"], "responses": stripExamples(op["responses"])}
		if outPaths[p] == nil {
			outPaths[p] = map[string]any{}
		}
		outPaths[p].(map[string]any)[m] = kept
	}
	out := map[string]any{"openapi": doc["openapi"], "info": doc["info"], "paths": outPaths}
	comps, err := referenced(doc, outPaths)
	if err != nil {
		return nil, nil, err
	}
	out["components"] = comps
	return out, missing, nil
}

// ExtractWebhooks keeps, of a webhooks description, the webhooks of the
// given kinds with their payload schema and the components it
// references. It also returns the kinds the description lacks.
func ExtractWebhooks(doc map[string]any, kinds []forge.WebhookKind) (map[string]any, []forge.WebhookKind, error) {
	hooks, _ := doc["webhooks"].(map[string]any)
	if hooks == nil {
		return nil, nil, fmt.Errorf("description has no webhooks")
	}
	outHooks := map[string]any{}
	var missing []forge.WebhookKind
	for _, k := range kinds {
		key := WebhookKey(k.Event, k.Action)
		v, ok := hooks[key].(map[string]any)
		if !ok {
			missing = append(missing, k)
			continue
		}
		post, _ := v["post"].(map[string]any)
		body, _ := post["requestBody"].(map[string]any)
		outHooks[key] = map[string]any{"post": map[string]any{"operationId": post["operationId"], "requestBody": stripExamples(body)}}
	}
	out := map[string]any{"openapi": doc["openapi"], "info": doc["info"], "webhooks": outHooks}
	comps, err := referenced(doc, outHooks)
	if err != nil {
		return nil, nil, err
	}
	out["components"] = comps
	return out, missing, nil
}

// stripExamples copies v without the "examples", "example" and
// "description" members (they are large and no part of a shape); a
// property of that name stays.
func stripExamples(v any) any { return strip(v, false) }

func strip(v any, names bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if !names && (k == "examples" || k == "example" || k == "description") {
				continue
			}
			out[k] = strip(x, !names && (k == "properties" || k == "patternProperties"))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = strip(x, false)
		}
		return out
	}
	return v
}

// referenced collects the components reachable through "$ref" from root,
// transitively, as a components object.
func referenced(doc map[string]any, root any) (map[string]any, error) {
	comps, _ := doc["components"].(map[string]any)
	out := map[string]any{}
	seen := map[string]bool{}
	queue := refsIn(root)
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
		if !strings.HasPrefix(ref, "#/components/") || len(parts) != 2 {
			return nil, fmt.Errorf("unsupported $ref %q", ref)
		}
		kind, name := parts[0], unescapePointer(parts[1])
		src, _ := comps[kind].(map[string]any)
		v, ok := src[name]
		if !ok {
			return nil, fmt.Errorf("$ref %q: no such component", ref)
		}
		v = stripExamples(v)
		if out[kind] == nil {
			out[kind] = map[string]any{}
		}
		out[kind].(map[string]any)[name] = v
		queue = append(queue, refsIn(v)...)
	}
	return out, nil
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// refsIn lists the "$ref" values in v, sorted.
func refsIn(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if r, ok := t["$ref"].(string); ok {
				out = append(out, r)
			}
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}
