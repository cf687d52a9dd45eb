package rendercheck

// RenderState is the porchbot/render check's state on a proposal's head,
// as the approval verdict sees it.
type RenderState string

// Render states.
const (
	// RenderUnknown: not gathered; the requirement is not applied.
	RenderUnknown RenderState = ""
	RenderPassed  RenderState = "passed"
	RenderFailed  RenderState = "failed"
	RenderPending RenderState = "pending"
)

// RenderProblem says why the render requirement is not met: the render
// check did not pass on the head ("" when it did, or is not known).
func RenderProblem(st RenderState) string {
	switch st {
	case RenderFailed:
		return "the render check failed on the head"
	case RenderPending:
		return "the render check has not finished on the head"
	}
	return ""
}
