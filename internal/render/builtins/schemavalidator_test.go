package builtins

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// testSchemas is the schema directory the generator wrote
// (testdata/kube-schemas, README there).
var testSchemas = filepath.Join("..", "..", "..", "testdata", "kube-schemas")

// validate runs a validator image over a package's files (path ->
// content) read as kpt reads them, with the server's schema directory
// testSchemas and the package's files as the package location.
func validate(t *testing.T, image, fnConfig string, files map[string]string) (string, error) {
	t.Helper()
	return validateIn(t, testSchemas, image, fnConfig, files)
}

// validateIn is validate with the server's schema directory dir.
func validateIn(t *testing.T, dir, image, fnConfig string, files map[string]string) (string, error) {
	t.Helper()
	var inputs []kio.Reader
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(p, ".yaml") && p != "Kptfile" {
			continue
		}
		inputs = append(inputs, &kio.ByteReader{Reader: strings.NewReader(files[p]),
			SetAnnotations: map[string]string{"internal.config.kubernetes.io/path": p}})
	}
	var items []*yaml.RNode
	for _, in := range inputs {
		got, err := in.Read()
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, got...)
	}
	r, err := Resolve(image, "")
	if err != nil {
		t.Fatal(err)
	}
	f := r.New()
	u, ok := f.(SchemaUser)
	if !ok {
		t.Fatalf("%s does not read schemas", image)
	}
	u.UseSchemas(SchemaSources{Dir: dir, Package: func(rel string) ([]byte, error) {
		if c, ok := files[rel]; ok {
			return []byte(c), nil
		}
		return nil, fs.ErrNotExist
	}})
	var fc *yaml.RNode
	if fnConfig != "" {
		fc = yaml.MustParse(fnConfig)
	}
	rl := &framework.ResourceList{Items: items, FunctionConfig: fc}
	perr := f.Process(rl)
	return resultLines(rl.Results), perr
}

const badDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: invalid
---
apiVersion: custom.io/v1
kind: Custom
metadata:
  name: custom
spec:
  image: nginx
`

const kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"

func TestKubeconformReportsTopLevelViolations(t *testing.T) {
	got, err := validate(t, "ghcr.io/kptdev/krm-functions-catalog/kubeconform:latest", cm("strict", "true"),
		map[string]string{"Kptfile": kptfile, "resources.yaml": badDeployment})
	var f Failure
	if !errors.As(err, &f) || f.Stderr != "failed to evaluate function: error: function failure" {
		t.Errorf("err = %v, want the SDK's function failure", err)
	}
	// the Custom resource and the Kptfile have no schema: kubeconform
	// reports nothing for them
	want := strings.Join([]string{
		formatResult("missing properties 'selector', 'template'", "error", "spec", "resources.yaml", 0) + " ref=Deployment//web",
		formatResult("got string, want null or integer", "error", "spec.replicas", "resources.yaml", 0) + " ref=Deployment//web",
	}, "\n")
	if got != want {
		t.Errorf("results:\n%s\nwant:\n%s", got, want)
	}
}

// Several failing fields: kubeconform reports each field's violations as
// one "validation failed", fields by name, unexpected properties of the
// resource itself last.
func TestKubeconformNestsSeveralFields(t *testing.T) {
	dep := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  colour: red\nspec:\n  replicas: 1\n  paused: maybe\n  selector: {}\n  template: {}\nextra: 1\n"
	got, err := validate(t, "kubeconform", cm("strict", "true"), map[string]string{"d.yaml": dep})
	if err == nil {
		t.Error("err = nil, want a failure")
	}
	want := strings.Join([]string{
		formatResult("additional properties 'colour' not allowed", "error", "metadata", "d.yaml", 0) + " ref=Deployment//web",
		formatResult("got string, want null or boolean", "error", "spec.paused", "d.yaml", 0) + " ref=Deployment//web",
		formatResult("additional properties 'extra' not allowed", "error", "", "d.yaml", 0) + " ref=Deployment//web",
	}, "\n")
	if got != want {
		t.Errorf("results:\n%s\nwant:\n%s", got, want)
	}
	// without strict, the non-strict schemas: unknown fields pass
	got, err = validate(t, "kubeconform", "", map[string]string{"d.yaml": dep})
	want = formatResult("got string, want null or boolean", "error", "spec.paused", "d.yaml", 0) + " ref=Deployment//web"
	if err == nil || got != want {
		t.Errorf("not strict: %v\n%s\nwant:\n%s", err, got, want)
	}
}

func TestKubevalReportsEveryViolationInItsWording(t *testing.T) {
	got, err := validate(t, "gcr.io/kpt-fn/kubeval:v0.1.1", cm("strict", "true"),
		map[string]string{"Kptfile": kptfile, "resources.yaml": badDeployment})
	if !errors.Is(err, ErrResultsOnly) {
		t.Errorf("err = %v, want a failure printing nothing", err)
	}
	missing := func(file string) string {
		return "Validating arbitrary CRDs is not supported yet. You can skip them by setting ignore_missing_schemas or skip_kinds in the function config:\n" +
			"ERR  - stdin: Failed initializing schema file:///tmp/master-standalone-strict/" + file + ": open /tmp/master-standalone-strict/" + file + ": no such file or directory\n"
	}
	// the SDK sorts the resources by apiVersion/kind/namespace/name
	want := strings.Join([]string{
		formatResult("selector is required", "error", "selector", "resources.yaml", 0) + " ref=Deployment//web",
		formatResult("template is required", "error", "template", "resources.yaml", 0) + " ref=Deployment//web",
		formatResult("Invalid type. Expected: [integer,null], given: string", "error", "spec.replicas", "resources.yaml", 0) + " ref=Deployment//web",
		formatResult(missing("custom-custom-v1.json"), "error", "", "resources.yaml", 1) + " ref=Custom//custom",
		formatResult(missing("kptfile-kpt-v1.json"), "error", "", "Kptfile", 0) + " ref=Kptfile//app",
	}, "\n")
	if got != want {
		t.Errorf("results:\n%s\nwant:\n%s", got, want)
	}

	got, _ = validate(t, "kubeval:v0.1.2", cm("ignore_missing_schemas", "true", "skip_kinds", "Deployment"),
		map[string]string{"Kptfile": kptfile, "resources.yaml": badDeployment})
	if got != "" {
		t.Errorf("ignore_missing_schemas and skip_kinds: results\n%s\nwant none", got)
	}
	_, err = validate(t, "kubeval:v0.1.1", cm("strict", "yes"), map[string]string{"resources.yaml": badDeployment})
	if err == nil {
		t.Error(`strict: "yes" is not JSON: want a failure`)
	}
}

func TestValidResourcesPass(t *testing.T) {
	ok := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"
	for _, image := range []string{"kubeconform", "kubeval:v0.1.1"} {
		got, err := validate(t, image, cm("strict", "true"), map[string]string{"c.yaml": ok})
		if err != nil || got != "" {
			t.Errorf("%s: %v\n%s", image, err, got)
		}
	}
}

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
              note: {type: string, nullable: true}
`

// The package's CustomResourceDefinitions give their resources' schemas.
func TestSchemasFromThePackagesCRDs(t *testing.T) {
	widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: big\n  note: null\n  colour: red\n"
	got, err := validate(t, "kubeconform", cm("strict", "true"), map[string]string{"crd.yaml": crd, "w.yaml": widget})
	want := strings.Join([]string{
		formatResult("got string, want integer", "error", "spec.size", "w.yaml", 0) + " ref=Widget//w",
		formatResult("additional properties 'colour' not allowed", "error", "spec", "w.yaml", 0) + " ref=Widget//w",
	}, "\n")
	if err == nil || got != want {
		t.Errorf("%v\n%s\nwant:\n%s", err, got, want)
	}
	// not strict: the unknown field passes
	got, err = validate(t, "kubeconform", "", map[string]string{"crd.yaml": crd, "w.yaml": widget})
	want = formatResult("got string, want integer", "error", "spec.size", "w.yaml", 0) + " ref=Widget//w"
	if err == nil || got != want {
		t.Errorf("not strict: %v\n%s\nwant:\n%s", err, got, want)
	}
}

// A schema location the config names is a directory inside the package;
// anything else is refused, and nothing is fetched.
func TestSchemaLocations(t *testing.T) {
	files := map[string]string{
		"w.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nsize: big\n",
		"schemas/master-standalone/widget-example-v1.json": `{"type":"object","properties":{"size":{"type":"integer"}}}`,
	}
	for _, loc := range []string{"schemas", "./schemas/"} {
		got, err := validate(t, "kubeconform", cm("schema_location", loc), files)
		want := formatResult("got string, want integer", "error", "size", "w.yaml", 0) + " ref=Widget//w"
		if err == nil || got != want {
			t.Errorf("%s: %v\n%s\nwant:\n%s", loc, err, got, want)
		}
	}
	for _, loc := range []string{"../schemas", "/etc", "file:///jsonschema", "https://example.com/schemas", "schemas/../../x"} {
		got, err := validate(t, "kubeconform", cm("schema_location", loc), files)
		if err == nil || !strings.Contains(got, "is not a directory inside the package") {
			t.Errorf("%s: %v\n%s\nwant a refusal", loc, err, got)
		}
	}
	// a schema that refers elsewhere is refused rather than fetched
	files["schemas/master-standalone/widget-example-v1.json"] = `{"$ref":"https://example.com/s.json"}`
	got, err := validate(t, "kubeconform", cm("schema_location", "schemas"), files)
	if err == nil || !strings.Contains(got, "nothing is fetched") {
		t.Errorf("remote $ref: %v\n%s\nwant a refusal", err, got)
	}
}

func TestResolveValidators(t *testing.T) {
	for image, version := range map[string]string{
		"ghcr.io/kptdev/krm-functions-catalog/kubeconform:latest": "latest",
		"kubeconform":                  "latest",
		"gcr.io/kpt-fn/kubeval:v0.1.1": "v0.1.1",
		"kubeval:v0.1":                 "v0.1.2",
		"kubeval:v0.1.0":               "v0.1.0",
		"kubeval:v0.2":                 "v0.2.1",
		"kubeval:v0.3.0":               "v0.3.0",
		"kubeval":                      "v0.3.0",
		// every catalog release of gatekeeper runs
		"gcr.io/kpt-fn/gatekeeper:v0.1.1": "v0.1.1",
		"gatekeeper:v0.1.2":               "v0.1.2",
		"gatekeeper:v0.1":                 "v0.1.3",
		"gatekeeper:v0.2.0":               "v0.2.0",
		"gatekeeper":                      "v0.2.1",
	} {
		r, err := Resolve(image, "")
		if err != nil || r.Version != version {
			t.Errorf("Resolve(%q) = %q, %v; want %s", image, r.Version, err, version)
		}
	}
	for _, image := range []string{"kubeconform:v0.1.1", "kubeval:v0.4.0", "kubeval:v0.0.1"} {
		var verr *VersionError
		if _, err := Resolve(image, ""); !errors.As(err, &verr) {
			t.Errorf("Resolve(%q) = %v, want a VersionError", image, err)
		}
	}
	if _, err := Resolve("kubeconform", "~0.1"); err == nil {
		t.Error("kubeconform with a tag constraint resolved, want a refusal")
	}
}

// kubeval's SDK keeps one resource per apiVersion/kind/namespace/name, the
// last one read; gojsonschema reports a map's value at the map's field.
func TestKubevalSeesOneResourcePerKey(t *testing.T) {
	twice := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: 1\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  b: [x]\n"
	got, err := validate(t, "kubeval:v0.1.1", "", map[string]string{"c.yaml": twice})
	want := formatResult("Invalid type. Expected: string, given: array", "error", "data", "c.yaml", 1) + " ref=ConfigMap//c"
	if err == nil || got != want {
		t.Errorf("%v\n%s\nwant:\n%s", err, got, want)
	}
}

// kubernetes_version picks the schemas' directory; skip_kinds takes kinds
// or apiVersion/kind.
func TestKubeconformVersionAndSkips(t *testing.T) {
	files := map[string]string{"resources.yaml": badDeployment}
	got, err := validate(t, "kubeconform", cm("kubernetes_version", "1.30.0"), files)
	if err != nil || got != "" {
		t.Errorf("kubernetes_version 1.30.0 (no v1.30.0-standalone schemas here): %v\n%s", err, got)
	}
	for _, skip := range []string{"Deployment", "apps/v1/Deployment", "Custom,Deployment"} {
		got, err := validate(t, "kubeconform", cm("skip_kinds", skip), files)
		if err != nil || got != "" {
			t.Errorf("skip_kinds %q: %v\n%s", skip, err, got)
		}
	}
}

// TestSchemaValidatorStaysInItsDirectories: neither the config's
// kubernetes_version nor a resource's kind or group can make the
// validator read a file outside the schema directory: a version that is
// none is refused, a kind naming another directory has no schema.
func TestSchemaValidatorStaysInItsDirectories(t *testing.T) {
	files := map[string]string{"resources.yaml": badDeployment}
	_, err := validate(t, "kubeconform", cm("kubernetes_version", "1/../../../../etc"), files)
	if err == nil {
		t.Error("kubernetes_version naming other directories was taken")
	}
	// a schema outside the schema directory that refuses everything: the
	// kind below would lead to it
	root := t.TempDir()
	schemas, outside := filepath.Join(root, "schemas"), filepath.Join(root, "outside")
	for _, d := range []string{schemas, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "x-apps-v1.json"), []byte(`{"not": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	item := yaml.MustParse("apiVersion: apps/v1\nkind: ../../outside/x\nmetadata:\n  name: web\n")
	r, err := Resolve("kubeconform", "")
	if err != nil {
		t.Fatal(err)
	}
	f := r.New()
	f.(SchemaUser).UseSchemas(SchemaSources{Dir: schemas})
	rl := &framework.ResourceList{Items: []*yaml.RNode{item}}
	if err := f.Process(rl); err != nil || len(rl.Results) != 0 {
		t.Errorf("a kind naming a file outside the schema directory: %v %s", err, resultLines(rl.Results))
	}
}

// v0.1's image makes no schema for a group with a dot (its
// openapi2jsonschema matches the apiVersion against the OpenAPI name's
// group); v0.2.0 on do, so the server's schema of such a kind is used.
func TestKubevalDottedGroups(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"master-standalone"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		schema := `{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}`
		if err := os.WriteFile(filepath.Join(dir, d, "widget-example-v1.json"), []byte(schema), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: big\n"
	for version, want := range map[string]string{
		"v0.1.2": "Validating arbitrary CRDs is not supported yet",
		"v0.2.0": "Invalid type. Expected: integer, given: string",
	} {
		got, err := validateIn(t, dir, "kubeval:"+version, "", map[string]string{"w.yaml": widget})
		if err == nil || !strings.Contains(got, want) {
			t.Errorf("%s: %v\n%s\nwant %q", version, err, got, want)
		}
	}
}

// What the image of v0.2.1 on validates against the schemas it bundles
// (the Kptfile; Config Connector's kinds from v0.2.0) and porchbot's
// schemas lack is refused, not reported as a resource without a schema.
func TestKubevalRefusesWhatOnlyTheImageHas(t *testing.T) {
	cc := "apiVersion: compute.cnrm.cloud.google.com/v1beta1\nkind: ComputeNetwork\nmetadata:\n  name: n\n"
	for _, c := range []struct {
		image, file, content string
		refused              bool
	}{
		{"kubeval:v0.2.1", "Kptfile", kptfile, true},
		{"kubeval:v0.3.0", "Kptfile", kptfile, true},
		{"kubeval:v0.2.0", "Kptfile", kptfile, false},
		{"kubeval:v0.2.0", "cc.yaml", cc, true},
		{"kubeval:v0.1.2", "cc.yaml", cc, false},
	} {
		got, err := validate(t, c.image, "", map[string]string{c.file: c.content})
		refused := strings.Contains(got, "which porchbot does not have and does not fetch")
		if err == nil || refused != c.refused {
			t.Errorf("%s %s: %v\n%s\nwant refused=%v", c.image, c.file, err, got, c.refused)
		}
	}
	// skipped by kind, the Kptfile needs no schema
	if got, err := validate(t, "kubeval:v0.3.0", cm("skip_kinds", "Kptfile"), map[string]string{"Kptfile": kptfile}); err != nil || got != "" {
		t.Errorf("skip_kinds Kptfile: %v\n%s", err, got)
	}
}
