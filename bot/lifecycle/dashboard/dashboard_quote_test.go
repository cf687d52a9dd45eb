package dashboard

import (
	"maps"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
)

// dashboardWriters are the templates of the dashboard issue, each given one piece of
// text that users control in every place it takes one (mdtest.Writers).
var dashboardWriters = mdtest.Writers{
	"dashboard": func(s string) string {
		return Body(Facts{Repo: "acme/catalog", Web: "https://github.example", DeploymentBranch: "main",
			Packages:      []proposals.PackageStatus{{Name: "p", Problem: "x" + s}},
			Proposals:     []Proposal{{Number: 1, Title: s, Package: "p", Problem: "x" + s}},
			ConfigError:   "c" + s,
			ConfigInForce: "the last good one"})
	},
}

// FuzzDashboardWritersQuote: no text in these templates (the rollout
// section's included) changes the structure of what porchbot writes
// around it or mentions anyone.
func FuzzDashboardWritersQuote(f *testing.F) {
	all := mdtest.Writers{}
	for _, ws := range []mdtest.Writers{dashboardWriters, rolloutWriters} {
		maps.Copy(all, ws)
	}
	mdtest.Fuzz(f, all)
}

// TestDashboardNamesInLinksStayInTheirLinks: a name in a link's URL cannot end
// the link and start markup after it.
func TestDashboardNamesInLinksStayInTheirLinks(t *testing.T) {
	mdtest.CheckLinkWriters(t, mdtest.Writers{
		"dashboard": func(s string) string {
			return Body(Facts{Repo: "acme/catalog", Web: "https://github.example", DeploymentBranch: "main",
				Packages: []proposals.PackageStatus{{Name: "p" + s, Dir: "p", Latest: 2}}, ConfigInForce: "the last good one"})
		}})
}
