package kptfile

import (
	"strings"
	"testing"
)

func TestRecordOnlyChange(t *testing.T) {
	const base = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app # a comment kpt's write drops
pipeline:
  mutators:
    - image: set-namespace:v0.4.1
      configMap:
        namespace: prod
`
	const passed = `status:
  conditions:
    - type: Rendered
      status: "True"
      reason: RenderSuccess
  renderStatus:
    mutationSteps:
      - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1
        exitCode: 0
`
	failed := strings.NewReplacer(`"True"`, `"False"`, "RenderSuccess", "RenderFailed").Replace(passed)
	otherResults := passed + "        results:\n          - message: namespace set on 1 resources\n            severity: info\n"
	other := strings.Replace(base, "namespace: prod", "namespace: dev", 1)
	for _, c := range []struct {
		name                string
		committed, rendered string
		want                bool
	}{
		{"no record, then one", base, base + passed, true},
		{"another render's results", base + otherResults, base + passed, true},
		{"the same record", base + passed, base + passed, true},
		{"a failure recorded, now passing", base + failed, base + passed, false},
		{"a pass recorded, now failing", base + passed, base + failed, false},
		{"another field too", other, base + passed, false},
		{"not a Kptfile", "{", base + passed, false},
	} {
		if got := RecordOnlyChange([]byte(c.committed), []byte(c.rendered)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
