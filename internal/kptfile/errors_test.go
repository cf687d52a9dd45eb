package kptfile

import (
	"errors"
	"strings"
	"testing"
)

const head = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // every problem, in order
	}{
		{"empty", "# nothing\n", []string{"Kptfile:1:1: the Kptfile is empty"}},
		{"not a mapping", "- a\n", []string{"Kptfile:1:1: must be a mapping, got a list"}},
		{"missing identity", "metadata:\n  name: p\n", []string{
			`Kptfile:1:1: missing required field "apiVersion"`, `Kptfile:1:1: missing required field "kind"`}},
		{"old apiVersion", "apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\n", []string{
			`Kptfile:1:13: apiVersion: "kpt.dev/v1alpha2" is an old version of the Kptfile schema; porchbot reads kpt.dev/v1. Upgrade the package: kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources, then commit the result`}},
		{"unknown top-level", head + "upstrem: {}\n", []string{
			`Kptfile:5:1: unknown field "upstrem" (did you mean "upstream"?)`}},
		{"unknown metadata", head + "  uid: x\n", []string{
			`Kptfile:5:3: unknown field "uid" in metadata (known fields: name, namespace, labels, annotations)`}},
		{"duplicate", head + "  name: q\n", []string{`Kptfile:5:3: duplicate field "name" (first at 4:3)`}},
		{"upstream", head + "upstream:\n  type: oci\n  updateStrategy: merge\nupstreamLock:\n  type: git\n", []string{
			`Kptfile:6:9: upstream.type: must be one of git, got "oci"`,
			`Kptfile:7:19: upstream.updateStrategy: must be one of resource-merge, fast-forward, force-delete-replace, copy-merge, got "merge"`,
			`Kptfile:9:3: upstreamLock: missing required field "git" for type git`}},
		{"git lock field", head + "upstreamLock:\n  type: git\n  git:\n    commt: abc\n", []string{
			`Kptfile:8:5: unknown field "commt" in upstreamLock.git (did you mean "commit"?)`}},
		{"functions", head + "pipeline:\n  mutators:\n  - image: a\n    exec: b\n  - configMap: {a: b}\n    configPath: c.yaml\n  validators:\n  - exec: /abs\n    configPath: /etc/x\n    selectors: [{}]\n    tag: v1\n", []string{
			`Kptfile:8:11: pipeline.mutators[0]: a function has "image" or "exec", not both`,
			`Kptfile:9:5: pipeline.mutators[1]: a function needs "image" or "exec"`,
			`Kptfile:9:16: pipeline.mutators[1]: a function has "configPath" or "configMap", not both`,
			`Kptfile:13:17: pipeline.validators[0].configPath: "/etc/x" must be a slash-separated path inside the package`,
			`Kptfile:15:10: pipeline.validators[0].tag: "tag" applies to "image" functions only`}},
		{"types", head + "info:\n  description: [a]\n  keywords: a\n  emails: [\"\"]\n", []string{
			`Kptfile:6:16: info.description: must be a string, got a list`,
			`Kptfile:7:13: info.keywords: must be a list, got string "a"`,
			`Kptfile:8:12: info.emails[0]: must not be empty`}},
		{"status", head + "status:\n  conditions:\n  - type: Ready\n    status: yes\n  - {type: Ready, status: \"True\"}\n  - {}\n  renderStatus: 3\n", []string{
			`Kptfile:8:13: status.conditions[0].status: must be one of True, False, Unknown, got "yes"`,
			`Kptfile:9:12: status.conditions[1].type: condition "Ready" is listed twice`,
			`Kptfile:10:5: status.conditions[2]: missing required field "type"`,
			`Kptfile:10:5: status.conditions[2]: missing required field "status"`,
			`Kptfile:11:17: status.renderStatus: must be a mapping, got integer 3`}},
		{"gates", head + "info:\n  readinessGates:\n  - conditionType: a\n  - conditionType: a\n  - {}\n", []string{
			`Kptfile:8:20: info.readinessGates[1].conditionType: readiness gate "a" is listed twice`,
			`Kptfile:9:5: info.readinessGates[2]: missing required field "conditionType"`}},
		{"alias", head + "info: &i {}\npipeline: *i\n", []string{
			"Kptfile:5:7: YAML anchor &i is not allowed",
			"Kptfile:6:11: YAML alias *i is not allowed; write the value out"}},
		{"syntax", head + "  bad\n: x\n", []string{"Kptfile:5:1: invalid YAML: could not find expected ':'"}},
		{"two documents", head + "---\n" + head, []string{
			`Kptfile:6:1: only one YAML document is allowed; remove the "---" separator and what follows`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			var got []string
			for _, p := range verr.Problems {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if err.Error() != strings.Join(tt.want, "\n") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestParseFileNamesTheFile(t *testing.T) {
	_, err := ParseFile("network/upf/Kptfile", []byte(head+"bogus: 1\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "network/upf/Kptfile:5:1: ") {
		t.Errorf("err = %v", err)
	}
}

func TestParseLimits(t *testing.T) {
	big := head + "info:\n  description: " + strings.Repeat("x", Limits.MaxBytes) + "\n"
	if _, err := Parse([]byte(big)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized: %v", err)
	}
	deep := head + "status:\n  renderStatus: {a: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "}\n"
	if _, err := Parse([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nested more than 32 levels") {
		t.Errorf("too deep: %v", err)
	}
}

func TestParseAcceptsWhatKptWrites(t *testing.T) {
	src := head + `  namespace: ns
  labels: {a: b}
  annotations: {n: 1}
upstream:
  type: git
  git: {repo: "https://github.com/a/b", directory: /x, ref: main}
  updateStrategy: copy-merge
upstreamLock:
  type: git
  git: {repo: "https://github.com/a/b", directory: /x, ref: main, commit: abc}
info:
  site: https://x
  emails: [a@b.c]
  license: Apache-2.0
  licenseFile: LICENSE
  description: d
  keywords: [k]
  man: README.md
  readinessGates:
  - conditionType: Ready
pipeline:
  mutators:
  - image: set-labels
    tag: "~0.2"
    name: labels
    configPath: fn/labels.yaml
    selectors: [{kind: Deployment, labels: {a: b}}]
    exclude: [{name: x}]
  validators:
  - exec: my-fn
    configMap: {a: "1", b: }
inventory:
  namespace: ns
  name: inv
  inventoryID: id
status:
  conditions:
  - type: Ready
    status: True
    reason: r
    message: m
  renderStatus:
    errorSummary: ""
`
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k := f.Kptfile()
	if k.Metadata.Annotations["n"] != "1" || k.Status.Conditions[0].Status != ConditionTrue || !k.Status.HasRenderStatus ||
		k.Pipeline.Validators[0].ConfigMap["b"] != "" || k.Pipeline.Mutators[0].Exclude[0].Name != "x" ||
		k.UpstreamLock.Git.Commit != "abc" || k.Inventory.InventoryID != "id" || k.Upstream.UpdateStrategy != CopyMerge {
		t.Errorf("typed view: %+v", k)
	}
}
