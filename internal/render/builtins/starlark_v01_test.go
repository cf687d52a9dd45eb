package builtins

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// runV01 runs source as starlark version over resources, returning the
// failure's stderr ("" when it passed) and what the program printed.
func runV01(t *testing.T, version, source string, resources ...string) (*framework.ResourceList, string, string) {
	t.Helper()
	var printed bytes.Buffer
	f, ok := NewStarlark(version, &printed)
	if !ok {
		t.Fatalf("no starlark %s", version)
	}
	fc := yaml.MustParse("apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: fn-config\nsource: |\n" +
		indent(source, "  "))
	rl := &framework.ResourceList{FunctionConfig: fc}
	for _, r := range resources {
		rl.Items = append(rl.Items, yaml.MustParse(r))
	}
	failure := ""
	if err := f.Process(rl); err != nil {
		failure = err.Error()
		if failure == "" {
			failure = "(failed)"
		}
	}
	return rl, failure, printed.String()
}

const v01CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"

// The Starlark of March 2020, as starlark v0.1.2 reported these programs
// (recorded from the release under kpt): its dialect's errors, in the order
// it reported them, and its built-ins' answers where today's differ.
func TestStarlarkV01Dialect(t *testing.T) {
	for _, c := range []struct{ source, want string }{
		{"x = lambda y: y\n", "fn-config:1:5: this Starlark dialect does not support lambda"},
		{"def f():\n  return 3 / 2\nf()\n", "fn-config:2:12: this Starlark dialect does not support floating point (use //)"},
		{"def f():\n  return float(3)\nf()\n", "fn-config:2:10: this Starlark dialect does not support floating point"},
		{"def f():\n  return set([1])\nf()\n", "fn-config:2:10: this Starlark dialect does not support sets"},
		{"def f():\n  while True:\n    pass\nf()\n", "fn-config:2:3: this Starlark dialect does not support while loops"},
		{"for x in []:\n  pass\n", "fn-config:1:1: for loop not within a function"},
		{"x = 1\nx = 2\n", "fn-config:2:1: cannot reassign global x declared at fn-config:1:1"},
		{"print(abs(-1))\n", "fn-config:1:7: undefined: abs"},
		{"() = ()\n", "fn-config:1:1: can't assign to ()"},
		{"def f(a, a):\n  pass\n", "fn-config:1:10: duplicate parameter: a"},
		{"def f():\n  return 1.5\ndef g():\n  return undefined_name\nf()\n", "fn-config:2:10: this Starlark dialect does not support floating point"},
		{"def f():\n  x = \nf()\n", "fn-config:3:1: got newline, want primary expression"},
		{"def f():\n  return g()\ndef g():\n  return f()\nf()\n", "function f called recursively"},
		{"load(\"a.star\", \"b\")\nprint(b)\n", "load not implemented by this application"},
		{"print(getattr(\"\", \"removeprefix\"))\n", "getattr: string has no .removeprefix field or method"},
		{"print(len(dir(\"\")), hasattr(\"\", \"removesuffix\"), getattr(\"\", \"removeprefix\", 1))\n", ""},
		{"def f(**k):\n  pass\nf(a=1, a=2)\n", "fn-config:3:8: keyword argument a repeated"},
		{"def f(*a):\n  pass\nf(*[1], 2)\n", "fn-config:3:9: argument may not follow *args"},
	} {
		_, failure, printed := runV01(t, "v0.1.2", c.source, v01CM)
		want := ""
		if c.want != "" {
			want = "[error] : " + c.want
		}
		if failure != want {
			t.Errorf("%q: got %q, want %q", c.source, failure, want)
		}
		if strings.HasPrefix(c.source, "print(len(dir") && printed != "33 False 1\n" {
			t.Errorf("dir, hasattr and getattr of a string: printed %q", printed)
		}
	}
}

// What porchbot cannot reproduce of starlark v0.1.x it refuses, saying why.
func TestStarlarkV01Refusals(t *testing.T) {
	const withData = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n"
	for _, c := range []struct{ source, resource, why string }{
		{"x = 1\n", withData + "  when: 2021-01-01\n", "a YAML timestamp"},
		{"x = 1\n", withData + "  one: 1.0\n", "holds the number 1, which starlark v0.1.x's Starlark (of March 2020) writes as 1 where porchbot's writes 1.0"},
		{"x = 1\n", withData + "  big: .inf\n", "writes as +Inf where porchbot's writes +inf"},
		{"print(ctx.open_api[\"definitions\"])\n", v01CM, "ctx.open_api: starlark v0.1.x hand the program the Kubernetes OpenAPI schema"},
		{"def f():\n  return \"a\\d\"\nf()\n", v01CM, "has a string escape today's Starlark refuses"},
		{"print(\"\\u00e9\")\n", v01CM, "has a \\u or \\U escape"},
		{"print(b\"x\")\n", v01CM, "has a bytes literal"},
		{"import os\n", v01CM, "uses a word today's Starlark reserves"},
		{"x = async\n", v01CM, "uses a word today's Starlark reserves"},
		{"print(\"abc\".removeprefix(\"a\"))\n", v01CM, "calls .removeprefix"},
		{"def f():\n  x = 3\n  x /= 2\nf()\n", v01CM, "divides with /="},
		{"print(\"%g\" % 3)\n", v01CM, "formats with %g"},
		{"def f(*a, **k):\n  pass\nf(*[1], k=2)\n", v01CM, "passes a keyword argument after *args"},
		{"x = 1\nx = 1.5\n", v01CM, "has errors of two kinds in one statement"},
		{"ctx.resource_list[\"items\"][0][\"data\"] = {(1, 2): \"x\"}\n", v01CM, "a dict with a tuple as a key"},
		{"ctx.resource_list[\"kind\"] = \"Other\"\n", v01CM, "without a list of resources"},
		{"d = ctx.resource_list[\"items\"][0][\"data\"]\nd[\"j\"] = 5000000000\nd[\"k\"] = 6000000000\n", withData + "  k: v\n  j: w\n",
			"in an order left to chance here; porchbot refuses the run rather than pick one of: " +
				"unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: 5000000000 out of range; " +
				"unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: 6000000000 out of range"},
	} {
		rl, failure, _ := runV01(t, "v0.1.2", c.source, c.resource)
		if !strings.Contains(failure, c.why) || !strings.Contains(resultLines(rl.Results), c.why) {
			t.Errorf("%q over %q: got %q, want it to say %q", c.source, c.resource, failure, c.why)
		}
	}
}

// Where the order in which the releases write the output is set by the
// program, or every order fails alike, porchbot fails as they do.
func TestStarlarkV01OutputErrors(t *testing.T) {
	for _, c := range []struct{ source, want string }{
		{"ctx.resource_list[\"items\"][0][\"data\"] = {\"x\": 5000000000, \"y\": 6000000000}\n",
			"unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: 5000000000 out of range"},
		{"d = ctx.resource_list[\"items\"][0][\"data\"]\nd[\"x\"] = 6000000000\nd[\"k\"] = 5000000000\n",
			"unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: 5000000000 out of range"},
		{"ctx.resource_list[\"items\"][0][\"data\"][\"f\"] = len\n",
			"unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: unrecognized starlark type: builtin_function_or_method"},
		{"ctx.resource_list[\"items\"][0][\"data\"][\"c\"] = ctx\n",
			"unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: constructor object from *starlarkstruct.Struct not supported Marshaler to starlark object: string"},
		{"ctx.resource_list[\"items\"].append({\"data\": {}})\n", "missing Resource metadata"},
	} {
		_, failure, _ := runV01(t, "v0.1.0", c.source, v01CM)
		if failure != c.want {
			t.Errorf("%q: got %q, want %q", c.source, failure, c.want)
		}
	}
}

// A program that removes the items leaves none (kpt then deletes every
// file); the StarlarkRun items go whatever the program does.
func TestStarlarkV01Items(t *testing.T) {
	run := "apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: other\nsource: x = 1\n"
	rl, failure, printed := runV01(t, "v0.1.1", "print(len(ctx.resource_list[\"items\"]))\n", v01CM, run)
	if failure != "" || printed != "1\n" || len(rl.Items) != 1 || rl.Items[0].GetKind() != "ConfigMap" {
		t.Errorf("StarlarkRun items: %q, printed %q, %d items", failure, printed, len(rl.Items))
	}
	rl, failure, _ = runV01(t, "v0.1.1", "ctx.resource_list.pop(\"items\")\n", v01CM)
	if failure != "" || len(rl.Items) != 0 {
		t.Errorf("items removed: %q, %d items", failure, len(rl.Items))
	}
}
