package builtins

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestStarlarkV021 runs starlark v0.2.1 as kpt's v1.0.0-beta.56 suite
// shows it: a program runs as under v0.2.2; a syntax error at a line's end
// is placed at the start of the next line (so in v0.2.2 too); a resource
// holding a flow-style collection, which its YAML round trip fails on, is
// refused saying so (v0.2.2 runs it).
func TestStarlarkV021(t *testing.T) {
	run := func(version, source, resource string) (*framework.ResourceList, error) {
		t.Helper()
		r, err := Resolve("gcr.io/kpt-fn/starlark:"+version, "")
		if err != nil {
			t.Fatal(err)
		}
		fc := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prog\ndata:\n  source: |\n" +
			indent(source, "    "))
		rl := &framework.ResourceList{Items: []*yaml.RNode{yaml.MustParse(resource)}, FunctionConfig: fc}
		return rl, r.New().Process(rl)
	}
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
	rl, err := run("v0.2.1", "def rename(items):\n  for r in items:\n    r[\"metadata\"][\"name\"] = \"b\"\nrename(ctx.resource_list[\"items\"])\n", cm)
	if err != nil {
		t.Fatal(err)
	}
	if got := rl.Items[0].GetName(); got != "b" {
		t.Errorf("the program did not run: name %q", got)
	}
	for _, version := range []string{"v0.2.1", "v0.2.2"} {
		rl, err = run(version, "x = 1 +\ny = 2\n", cm)
		if err == nil || !strings.Contains(resultLines(rl.Results), "prog:2:1: got newline, want primary expression") {
			t.Errorf("%s: a syntax error at a line's end: %v\n%s", version, err, resultLines(rl.Results))
		}
	}
	flow := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {app: web}\ndata:\n  k: v\n"
	rl, err = run("v0.2.1", "x = 1\n", flow)
	if err == nil || !strings.Contains(resultLines(rl.Results), "flow-style collections") {
		t.Errorf("v0.2.1 and a flow-style mapping: %v\n%s", err, resultLines(rl.Results))
	}
	if _, err := run("v0.2.2", "x = 1\n", flow); err != nil && !errors.Is(err, ErrResultsOnly) {
		t.Errorf("v0.2.2 runs a flow-style mapping: %v", err)
	}
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}
