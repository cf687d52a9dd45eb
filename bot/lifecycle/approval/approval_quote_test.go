package approval

import (
	"testing"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
)

// approvalWriters are the templates of the porchbot/approval check, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var approvalWriters = mdtest.Writers{
	"approval check": func(s string) string {
		return Result{Summary: "Waiting", MissingGates: []GateStatus{{Package: "p" + s, ConditionType: "c" + s, Status: "False",
			Reason: "r" + s, Message: "m" + s}, {ConditionType: "c" + s, Status: "Unknown", Message: "m" + s}}}.Markdown(config.Approvals{})
	},
	"deletion guard": func(s string) string {
		in := Inputs{Orphans: []OrphanedPackage{{Package: "p" + s, Downstreams: 2}, {Package: "q" + s, Downstreams: 1, Partial: true}}}
		return Evaluate(config.Approvals{}, in).Markdown(config.Approvals{})
	},
}

// FuzzApprovalWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzApprovalWritersQuote(f *testing.F) { mdtest.Fuzz(f, approvalWriters) }
