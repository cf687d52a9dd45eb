package publish

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

// TestRenderRunningWaitsOnlyForTheRender: a landing waits (rather than
// being refused) only when its render is still running and everything
// else of the policy is met.
func TestRenderRunningWaitsOnlyForTheRender(t *testing.T) {
	running := rendercheck.RenderProblem(rendercheck.RenderPending)
	met := approval.Result{Required: 1, Approvers: []approval.CountedApproval{{User: "bob"}}, RenderProblem: running}
	if !renderRunning(met) {
		t.Error("a landing met but for its running render is refused")
	}
	for name, res := range map[string]approval.Result{
		"no approval":   {Required: 1, RenderProblem: running},
		"render failed": {Required: 1, Approvers: met.Approvers, RenderProblem: rendercheck.RenderProblem(rendercheck.RenderFailed)},
		"a gate unmet":  {Required: 1, Approvers: met.Approvers, RenderProblem: running, MissingGates: []approval.GateStatus{{ConditionType: "ready"}}},
		"orphans":       {Required: 1, Approvers: met.Approvers, RenderProblem: running, OrphanProblem: "deletes a package others use"},
		"render passed": {Required: 1, Approvers: met.Approvers},
	} {
		if renderRunning(res) {
			t.Errorf("%s: waits for the render", name)
		}
	}
}
