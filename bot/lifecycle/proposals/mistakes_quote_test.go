package proposals

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
)

// mistakesWriters are the templates of replies to mistaken commands, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var mistakesWriters = mdtest.Writers{
	"unknown package reply": func(s string) string {
		return unknownPackage((&core.Session{DeploymentBranch: "main"}), "p"+s, []string{"p" + s + "x"}).Error()
	},
	"dependents report": func(s string) string {
		d := downstreams.Downstream{Repo: "o/r" + s, Package: "p" + s, Public: true,
			Upstream: kptfile.Git{Ref: "ref" + s}, Lock: &kptfile.GitLock{Ref: "lock" + s, Commit: "c" + s}}
		r := &DependentsReport{Repository: "o/u" + s, Package: "p" + s, Latest: 2, tracked: []int{0, 1},
			Dependents: core.Dependents{All: []downstreams.Downstream{d, d, d}, Named: []downstreams.Downstream{d, d}, Hidden: 1, Known: true}}
		return r.Markdown()
	}}

// FuzzMistakesWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzMistakesWritersQuote(f *testing.F) { mdtest.Fuzz(f, mistakesWriters) }
