package publish

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/treediff"
)

// publishWriters are the templates of publish: release notes and the refusal comment, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var publishWriters = mdtest.Writers{
	"release notes": func(s string) string {
		return ReleaseNotes{Package: "network/upf", Revision: 2, Tag: "network/upf/v2", PreviousTag: "network/upf/v1",
			PR:        &ReleasePR{Number: 7, Title: s, URL: "https://github.example/acme/catalog/pull/7", Author: "alice"},
			Approvers: []string{"bob"}, Files: treediff.Diff{Modified: []string{"f" + s}}}.Markdown()
	},
	"publish refusal": func(s string) string {
		return publishRefusalComment(&core.Session{DeploymentBranch: "main"}, core.Landing{Package: "p" + s}, LandingVerdict{reason: "the package differs"},
			[]string{"f" + s}, packages.DraftBranch("p"+s, "w"+s))
	},
}

// FuzzPublishWritersQuote: no text in these templates changes the
// structure of what porchbot writes around it or mentions anyone.
func FuzzPublishWritersQuote(f *testing.F) { mdtest.Fuzz(f, publishWriters) }

// TestPublishNamesInLinksStayInTheirLinks: a name in a link's URL cannot end
// the link and start markup after it.
func TestPublishNamesInLinksStayInTheirLinks(t *testing.T) {
	mdtest.CheckLinkWriters(t, mdtest.Writers{
		"publish refusal": func(s string) string {
			pr := &hub.Pull{Base: hub.Branch{RepoHTMLURL: "https://github.example/acme/catalog"}}
			return publishRefusalComment(&core.Session{DeploymentBranch: "main"}, core.Landing{Package: "p" + s}, LandingVerdict{reason: "the package differs", PR: pr},
				nil, packages.DraftBranch("p"+s, "w"))
		},
	})
}
