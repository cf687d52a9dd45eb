package proposals

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
)

// mistakesWriters are the templates of replies to mistaken commands, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var mistakesWriters = mdtest.Writers{
	"unknown package reply": func(s string) string {
		return unknownPackage((&core.Session{DeploymentBranch: "main"}), "p"+s, []string{"p" + s + "x"}).Error()
	}}

// FuzzMistakesWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzMistakesWritersQuote(f *testing.F) { mdtest.Fuzz(f, mistakesWriters) }
