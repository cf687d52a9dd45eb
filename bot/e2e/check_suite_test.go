package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestRerunAllChecksRendersAgain: "Re-run all checks" on a draft head's
// suite (GitHub sends the App one check_suite "rerequested") runs
// porchbot/render again there: a second render check run appears on the
// head, and no check_run "rerequested" was sent for it.
func TestRerunAllChecksRendersAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	head := w.pushDraft("rerun", map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: rerun\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"})
	renders := func() []*github.CheckRun {
		t.Helper()
		res, _, err := w.client("alice").Checks.ListCheckRunsForRef(w.ctx, "acme", "catalog", head,
			&github.ListCheckRunsOptions{CheckName: github.String("porchbot/render"), Filter: github.String("all")})
		if err != nil {
			t.Fatal(err)
		}
		return res.CheckRuns
	}
	first := renders()
	if len(first) != 1 || first[0].GetConclusion() != "success" {
		t.Fatalf("render runs on the draft head: %d", len(first))
	}
	suite := first[0].GetCheckSuite().GetID()
	before := len(w.svc.Embedded.Forge.Deliveries())
	if err := w.svc.Embedded.Forge.RerequestCheckSuite("acme/catalog", suite, "bob"); err != nil {
		t.Fatal(err)
	}
	w.settle()
	after := renders()
	if len(after) != 2 {
		t.Fatalf("render runs after Re-run all checks: %d, want 2", len(after))
	}
	var kinds []string
	for _, d := range w.svc.Embedded.Forge.Deliveries()[before:] {
		if d.Action == "rerequested" {
			kinds = append(kinds, d.Event)
		}
	}
	if strings.Join(kinds, ",") != "check_suite" {
		t.Fatalf("deliveries for the suite re-request: %v", kinds)
	}
}
