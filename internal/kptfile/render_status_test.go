package kptfile

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// TestWriteRenderStatusAsKptWritesIt: the Rendered condition is replaced
// (another condition kept, first), the render status set, and the whole
// file written again from its fields as kpt v1.0.0-beta.67 writes it:
// comments gone, sequences indented under their key, fields in kpt's
// order.
func TestWriteRenderStatusAsKptWritesIt(t *testing.T) {
	in := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  annotations:
    a: b
  name: app
pipeline:
  mutators:
  # a comment kpt drops
  - image: set-labels:v0.2.1
    configMap:
      tier: "backend"
status:
  conditions:
  - type: Rendered
    status: "False"
    reason: RenderFailed
  - type: Ready
    status: "True"
`
	rs := &RenderStatus{MutationSteps: []PipelineStepResult{
		{Image: "set-labels:v0.2.1", Results: []*framework.Result{{Message: "set 1 labels in total", Severity: framework.Info}}},
		{Image: "starlark:v0.5.1", ExitCode: 1, Stderr: "boom",
			Results: []*framework.Result{{Message: "fail: no", Severity: framework.Error}}},
	}}
	rs.MutationSteps[1].ErrorResults = rs.MutationSteps[1].Results
	rs.Summarize()
	out, err := WriteRenderStatus([]byte(in), Condition{Type: ConditionRendered, Status: ConditionFalse, Reason: ReasonRenderFailed,
		Message: "pkg.render: pkg .:\n\tpipeline.run: already handled error"}, rs)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  annotations:
    a: b
pipeline:
  mutators:
    - image: set-labels:v0.2.1
      configMap:
        tier: backend
status:
  conditions:
    - type: Ready
      status: "True"
    - type: Rendered
      status: "False"
      reason: RenderFailed
      message: |-
        pkg.render: pkg .:
        	pipeline.run: already handled error
  renderStatus:
    mutationSteps:
      - image: set-labels:v0.2.1
        exitCode: 0
        results:
          - message: set 1 labels in total
            severity: info
      - image: starlark:v0.5.1
        stderr: boom
        exitCode: 1
        results:
          - message: 'fail: no'
            severity: error
        errorResults:
          - message: 'fail: no'
            severity: error
    errorSummary: 'starlark:v0.5.1: exit code 1'
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// What a render recorded is cleared; another condition stays.
	f, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	k := *f.Kptfile()
	ClearRenderStatus(&k)
	if k.Status == nil || len(k.Status.Conditions) != 1 || k.Status.Conditions[0].Type != "Ready" || k.Status.HasRenderStatus {
		t.Errorf("cleared status %+v", k.Status)
	}
	if _, err := WriteRenderStatus([]byte("kind: Kptfile\n"), Condition{}, nil); err == nil || !strings.Contains(err.Error(), "apiVersion") {
		t.Errorf("a Kptfile kpt cannot read either: %v", err)
	}
}
