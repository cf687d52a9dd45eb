package variant

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	"github.com/porchbot/porchbot/internal/variants"
)

// variantWriters are the templates of variants: the variant pull request and removal bodies, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var variantWriters = mdtest.Writers{
	"variant pull request body": func(s string) string {
		up := &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog"}}
		upRev := updates.UpstreamRevision{Session: up, Package: "u" + s, Dir: "d" + s, Revision: 2}
		a := variants.Action{Target: "acme/edge-1", Package: "p" + s, Revision: 2}
		m := variants.Mutation{Owner: variants.Ownership{Upstream: "acme/catalog", Package: "u" + s, Downstream: "p" + s},
			Spec: "s" + s, Labels: map[string]string{"k" + s: "v" + s}, Namespace: "n" + s}
		return variantCloneBody(up, &core.Session{Repo: core.Repo{Owner: "acme", Name: "edge-1"}}, a, upRev) +
			variantNote(up, a, config.Variant{Upstream: config.VariantUpstream{Package: "u" + s}}, m, nil)
	},
	"variant removal body": func(s string) string {
		return removalNote(variants.Action{Target: "acme/edge-1", Owner: variants.Ownership{Upstream: "acme/catalog", Package: "u" + s,
			Downstream: "d" + s, OnRemove: "o" + s}})
	},
}

// FuzzVariantWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzVariantWritersQuote(f *testing.F) { mdtest.Fuzz(f, variantWriters) }
