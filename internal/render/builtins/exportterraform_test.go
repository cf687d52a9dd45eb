package builtins

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The golden cases (testdata/builtin-versions/export-terraform) hold what
// the releases write; these are what porchbot refuses to reproduce, and
// where the release's stderr goes.

const tfOrgPolicy = `apiVersion: iam.cnrm.cloud.google.com/v1beta1
kind: IAMPolicy
metadata:
  name: org-policy
spec:
  resourceRef:
    kind: Organization
    external: "123"
  bindings:
  - role: roles/viewer
    members:
    - user:someone@example.com
`

// A list of another shape than Config Connector's is refused: the release
// prints the decoder's error, naming lines of kpt's input.
func TestExportTerraformRefusesAListItCannotDecode(t *testing.T) {
	_, _, err := render(t, "export-terraform", "", map[string]string{"iam.yaml": tfOrgPolicy})
	if !errors.Is(err, errTerraformDecode) {
		t.Fatalf("got %v, want the decode refusal", err)
	}
}

// A YAML alias in a field the release reads is refused: its SDK panics.
func TestExportTerraformRefusesAnAlias(t *testing.T) {
	item := yaml.MustParse(`apiVersion: resourcemanager.cnrm.cloud.google.com/v1beta1
kind: Folder
metadata:
  name: &n team
spec:
  displayName: *n
  organizationRef:
    external: "123"
`)
	rl := &framework.ResourceList{Items: []*yaml.RNode{item}}
	spec, _ := Lookup("export-terraform")
	if err := spec.New().(Bare).ProcessBare(rl); !errors.Is(err, errTerraformAlias) {
		t.Fatalf("got %v, want the alias refusal", err)
	}
}

// What the release says on stderr while it passes goes where the caller
// says.
func TestExportTerraformWritesItsDiagnosticsToStderr(t *testing.T) {
	item := yaml.MustParse(`apiVersion: iam.cnrm.cloud.google.com/v1beta1
kind: IAMAuditConfig
metadata:
  name: audit
spec:
  resourceRef:
    kind: Organization
    external: "123"
`)
	rl := &framework.ResourceList{Items: []*yaml.RNode{item}}
	r, err := Resolve("gcr.io/kpt-fn/export-terraform:v0.2.0", "")
	if err != nil {
		t.Fatal(err)
	}
	f := r.New()
	var stderr bytes.Buffer
	f.(StderrUser).UseStderr(&stderr)
	if err := f.Process(rl); err != nil {
		t.Fatal(err)
	}
	if want := "unable to find auditLogConfigs in audit (found = false): %!s(<nil>)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	// the items as the release's SDK sorts them: by apiVersion first
	if len(rl.Items) != 2 || !strings.Contains(rl.Items[1].MustString(), "google_organization_iam_audit_config") {
		t.Errorf("want the audit config in the ConfigMap terraform, after the item:\n%v", rl.Items)
	}
}
