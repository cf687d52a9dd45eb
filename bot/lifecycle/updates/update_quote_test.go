package updates

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	"github.com/porchbot/porchbot/internal/update"
)

// updateWriters are the templates of updates: the update pull request body, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var updateWriters = mdtest.Writers{
	"update pull request body": func(s string) string {
		up := UpstreamRevision{Session: &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog"}}, Package: "network/upf", Dir: "network/upf", Revision: 3}
		plan := &Plan{Upstream: up, Package: "upf", FromRef: "network/upf/v1", From: 1, OnConflict: "upstream", Files: map[string][]byte{},
			Conflicts: []update.Conflict{{File: "f" + s, Resource: "r" + s, Field: "k" + s, Local: "l" + s, Upstream: "u" + s, Taken: "upstream"}}}
		return Body(plan, "https://github.example/", []UpstreamNote{
			{Revision: 2, Tag: "network/upf/v2", URL: "https://github.example/acme/catalog/releases/tag/network/upf/v2", Body: "n" + s},
			{Revision: 3, Tag: "network/upf/v3", Body: "n" + s}})
	},
}

// FuzzUpdateWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzUpdateWritersQuote(f *testing.F) { mdtest.Fuzz(f, updateWriters) }
