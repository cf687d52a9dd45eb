package commands

import "context"

// verbFunc runs one parsed command whose place and permission are checked.
type verbFunc func(ctx context.Context, cr *commentRun, c Command) result

// verbHandlers executes the verbs of the Verbs table.
var verbHandlers = map[string]verbFunc{
	"help":       runHelp,
	"list":       runList,
	"dependents": runDependents,
	"init":       runInit,
	"clone":      runClone,
	"edit":       runEdit,
	"rollback":   runRollback,
	"propose":    runPropose,
	"approve":    runApprove,
	"reject":     runReject,
	"render":     runRender,
	"upgrade":    runUpgrade,
	"delete":     runDelete,
	"publish":    runPublish,
	"variants":   runVariants,
	"rollout":    runRollout,
}

// runHelp renders the command table (one verb's row with an argument).
func runHelp(_ context.Context, _ *commentRun, c Command) result {
	if v := c.Arg(0); v != "" {
		return ok(HelpMarkdown(v))
	}
	return ok(HelpMarkdown())
}
