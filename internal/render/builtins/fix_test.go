package builtins

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// What fix does with the packages kpt fn eval hands it is recorded from the
// releases (testdata/fn-eval/fix, cmd/porchbot's TestRunFnMatchesReleases)
// and in renders (testdata/builtin-versions/fix). These are the inputs
// porchbot refuses instead: where the release panics, never returns,
// prints on stderr and goes on, or words a failure through libraries
// porchbot does not hold.
func TestFixRefusesWhatItDoesNotReproduce(t *testing.T) {
	const oldKptfile = "apiVersion: kpt.dev/v1alpha1\nkind: Kptfile\nmetadata:\n  name: old\n"
	for name, c := range map[string]struct {
		files map[string]string
		want  string
	}{
		"a substitution of something neither setter nor substitution": {map[string]string{
			"Kptfile": oldKptfile + `openAPI:
  definitions:
    io.k8s.cli.shapes.plain:
      type: string
    io.k8s.cli.substitutions.image:
      x-k8s-cli:
        substitution:
          name: image
          pattern: X:1
          values:
            - marker: X
              ref: '#/definitions/io.k8s.cli.shapes.plain'
`,
			"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  image: a:1 # {\"$kpt-set\":\"image\"}\n",
		}, "neither setter nor substitution; the release panics"},
		"a function annotation it cannot decode": {map[string]string{
			"Kptfile": oldKptfile,
			"fn.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: not a spec\n",
		}, "prints that on stderr and moves it anyway"},
		"a setter name with spaces around it": {map[string]string{
			"Kptfile": oldKptfile + "openAPI:\n  definitions:\n    io.k8s.cli.setters.x:\n      x-k8s-cli:\n        setter:\n          name: ' x'\n          value: a\n",
		}, `the setter name " x" is trimmed`},
		"a setter named like a list index": {map[string]string{
			"Kptfile": oldKptfile + "openAPI:\n  definitions:\n    io.k8s.cli.setters.x:\n      x-k8s-cli:\n        setter:\n          name: '3'\n          value: a\n",
		}, `the setter name "3" is a list index`},
		"an openAPI section that is no schema": {map[string]string{
			"Kptfile": oldKptfile + "openAPI:\n  definitions: [a]\n",
		}, "openAPI section is no OpenAPI schema"},
		"array items given as a list of schemas": {map[string]string{
			"Kptfile":  oldKptfile + "openAPI:\n  definitions:\n    shapes.args:\n      type: array\n      items: [{type: string}]\n",
			"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  args: # {\"$ref\":\"#/definitions/shapes.args\"}\n  - a\n",
		}, "the release panics reading it"},
		"a substitution that grows without bound": {map[string]string{
			"Kptfile":  oldKptfile + "openAPI:\n  definitions:\n" + growingSubstitutions(8),
			"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  image: a # {\"$kpt-set\":\"s7\"}\n",
		}, "pattern grows past"},
	} {
		t.Run(name, func(t *testing.T) {
			_, results, err := render(t, "fix", "", c.files)
			if !errors.Is(err, errFixNotReproduced) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a refusal saying %q", err, c.want)
			}
			if len(results) != 1 || results[0].Severity != framework.Error || results[0].Message != err.Error() {
				t.Errorf("results %v, want the refusal", results)
			}
		})
	}
}

// growingSubstitutions are n substitutions, each putting the one before
// it between every two characters of its pattern (an empty marker).
func growingSubstitutions(n int) string {
	var b strings.Builder
	b.WriteString("    io.k8s.cli.setters.v:\n      x-k8s-cli:\n        setter:\n          name: v\n          value: a\n")
	prev := "io.k8s.cli.setters.v"
	for i := range n {
		name := "s" + string(rune('0'+i))
		b.WriteString("    io.k8s.cli.substitutions." + name + ":\n      x-k8s-cli:\n        substitution:\n          name: " + name +
			"\n          pattern: " + strings.Repeat("x", 64) + "\n          values:\n            - marker: ''\n              ref: '#/definitions/" +
			prev + "'\n")
		prev = "io.k8s.cli.substitutions." + name
	}
	return b.String()
}

// An item whose path is absolute: the release, looking for its package
// above it, never returns. A function config named in metadata.configFn
// without annotations (no path: in the root package) makes it panic; kpt's
// runner always gives items annotations (ids), so only a ResourceList
// handed to the function alone has one.
func TestFixRefusesPathsItCannotPlace(t *testing.T) {
	for name, c := range map[string]struct {
		items []string
		want  string
	}{
		"an absolute path": {[]string{
			"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n  annotations:\n    config.kubernetes.io/path: Kptfile\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    config.kubernetes.io/path: /etc/c.yaml\n",
		}, `the path "/etc/c.yaml" is absolute`},
		"a configFn without annotations": {[]string{
			"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n  annotations:\n    config.kubernetes.io/path: Kptfile\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  configFn:\n    container:\n      image: x\n",
		}, "panics setting its path"},
	} {
		t.Run(name, func(t *testing.T) {
			rl := &framework.ResourceList{}
			for _, it := range c.items {
				rl.Items = append(rl.Items, yaml.MustParse(it))
			}
			spec, _ := Lookup("fix")
			err := spec.New().(Bare).ProcessBare(rl)
			if !errors.Is(err, errFixNotReproduced) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a refusal saying %q", err, c.want)
			}
		})
	}
}
