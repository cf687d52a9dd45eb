package updates

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/hub"
)

// pagedInstallation is an installation of n private repositories
// acme/r000..., listed a page at a time; pages counts the pages asked.
type pagedInstallation struct {
	n, pages int
}

func (p *pagedInstallation) ListInstallationRepos(_ context.Context, pg hub.Page) ([]hub.Repository, int, hub.Next, error) {
	p.pages++
	page := max(pg.Number, 1)
	var out []hub.Repository
	for i := (page - 1) * pg.PerPage; i < min(page*pg.PerPage, p.n); i++ {
		out = append(out, hub.Repository{Name: fmt.Sprintf("r%03d", i), Owner: "acme", Visibility: "private", Private: true})
	}
	var next hub.Next
	if page*pg.PerPage < p.n {
		next.Page = page + 1
	}
	return out, p.n, next, nil
}

// TestDownstreamVisibilitiesPagesWhileCheaper: the installation's list is
// paged only while that is cheaper than asking each downstream repository
// (two or more unknown, fewer pages spent than were unknown at the start);
// nothing is listed from a public upstream, for repositories of other
// installations, or for visibilities already kept.
func TestDownstreamVisibilitiesPagesWhileCheaper(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	cases := []struct {
		name     string
		upstream flow.Visibility
		installs map[string]int64 // downstream repository → installation (1: the upstream's)
		cached   []string
		pages    int
		known    int
	}{
		{name: "public upstream", upstream: flow.Public, installs: map[string]int64{"acme/r001": 1}},
		{name: "all on the first page", upstream: flow.Private, installs: map[string]int64{"acme/r001": 1, "acme/r050": 1, "acme/r099": 1}, pages: 1, known: 3},
		{name: "paged until all are known", upstream: flow.Private,
			installs: map[string]int64{"acme/r001": 1, "acme/r150": 1, "acme/r250": 1, "acme/r251": 1, "acme/r252": 1}, pages: 3, known: 5},
		{name: "the last one asked", upstream: flow.Private,
			installs: map[string]int64{"acme/r001": 1, "acme/r002": 1, "acme/r003": 1, "acme/r150": 1, "acme/r250": 1}, pages: 2, known: 4},
		{name: "stops when asking is no dearer", upstream: flow.Private, installs: map[string]int64{"acme/r001": 1, "acme/r250": 1}, pages: 1, known: 1},
		{name: "no more pages than there were unknown", upstream: flow.Private, installs: map[string]int64{"acme/gone-1": 1, "acme/gone-2": 1}, pages: 2},
		{name: "one is asked", upstream: flow.Private, installs: map[string]int64{"acme/r001": 1}},
		{name: "another installation is asked", upstream: flow.Internal, installs: map[string]int64{"other/x": 2, "other/y": 2}},
		{name: "already kept", upstream: flow.Private, installs: map[string]int64{"acme/r001": 1, "acme/r002": 1}, cached: []string{"r001", "r002"}, known: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inst := &pagedInstallation{n: 300}
			f := &Fanout{Flows: &flow.Checker{}, Repos: func(*core.Session) VariantRepoLister { return inst }}
			for _, name := range tc.cached {
				f.Flows.Remember(hub.Repository{Name: name, Owner: "acme", Visibility: "private", Private: true})
			}
			up := UpstreamRevision{Session: &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog", InstallationID: 1}, Log: log}, Visibility: tc.upstream}
			known := f.downstreamVisibilities(context.Background(), up, tc.installs)
			if inst.pages != tc.pages || len(known) != tc.known {
				t.Errorf("%d pages listed, %d visibilities known (%v); want %d and %d", inst.pages, len(known), known, tc.pages, tc.known)
			}
			for repo, v := range known {
				if v != flow.Private {
					t.Errorf("%s known as %s", repo, v)
				}
			}
		})
	}
}
