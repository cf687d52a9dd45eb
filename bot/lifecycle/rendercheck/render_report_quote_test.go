package rendercheck

import (
	"errors"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	"github.com/porchbot/porchbot/internal/render"
)

// renderWriters are the templates of render: the porchbot/render check, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var renderWriters = mdtest.Writers{
	"render check": func(s string) string {
		steps := []render.Step{{Package: ".", Image: "gcr.io/kpt-fn/starlark:v0.5.0", Name: "n" + s, Kind: render.Validator,
			Status: render.StepFailed, Message: "m" + s, Stderr: "e" + s,
			Results: []*framework.Result{{Message: "r" + s, Severity: framework.Error}}}}
		rep := renderReport(renderFacts{Package: "p", Dir: "p", Err: errors.New(s), Result: ckResult(steps...)})
		return rep.Summary + "\n" + rep.Text
	},
	"deletion render check": func(s string) string {
		rep := renderReport(renderFacts{Package: "p" + s, Dir: "d" + s, Missing: true, Deletion: true, DeploymentBranch: "main"})
		return rep.Summary + "\n" + rep.Text
	},
}

// FuzzRenderWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzRenderWritersQuote(f *testing.F) { mdtest.Fuzz(f, renderWriters) }
