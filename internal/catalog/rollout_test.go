package catalog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/index"
)

// TestRolloutOnThePackagePage: the package page says how far the rollout
// went over the downstreams the viewer may read; a downstream in a
// repository they cannot read is not counted (nor named).
func TestRolloutOnThePackagePage(t *testing.T) {
	ro := &Rollout{Revision: 2, State: "stopped", RequireDeployment: true, Downstreams: []RolloutDownstream{
		{Repository: "acme/edge-1", Package: "upf", Merged: true, Healthy: true},
		{Repository: "acme/edge-2", Package: "upf", Merged: true, Failed: true},
		{Repository: "acme/edge-3", Package: "upf"},
		{Repository: "globex/secret", Package: "upf", Merged: true, Failed: true},
	}}
	r := Build(Input{Ref: RepoRef{Owner: "acme", Name: "catalog"}, Web: "https://github.com/acme/catalog",
		Index:    &index.Index{Packages: []index.Package{{Name: "net/upf", Revisions: revs("net/upf", 2)}}},
		Rollouts: map[string]*Rollout{"net/upf": ro}})
	page := func(v Viewer) string {
		t.Helper()
		seen := v.Filter(r)
		p, ok := seen.Package("net/upf")
		if !ok {
			t.Fatal("no package net/upf")
		}
		var b bytes.Buffer
		if err := Render(&b, PagePackage, Page{Title: "net/upf", Login: v.Login, Data: PackageView{Repo: seen, Package: p}}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	alice := Viewer{Login: "alice", CanRead: func(n string) bool { return strings.HasPrefix(n, "acme/") }}
	if got, want := page(alice), `<p id="rollout">v2, stopped: deployed and healthy in 1 of 3 downstreams, failed in 1.</p>`; !strings.Contains(got, want) {
		t.Errorf("alice's page does not say %q:\n%s", want, got)
	}
	everyone := Viewer{Login: "bob", CanRead: func(string) bool { return true }}
	if got, want := page(everyone), "deployed and healthy in 1 of 4 downstreams, failed in 2."; !strings.Contains(got, want) {
		t.Errorf("bob's page does not say %q:\n%s", want, got)
	}
	if len(r.Packages[0].Rollout.Downstreams) != 4 {
		t.Error("Filter changed the shared view's rollout")
	}
	ro.RequireDeployment = false
	if got, want := page(alice), "merged in 1 of 3 downstreams"; !strings.Contains(got, want) {
		t.Errorf("a rollout without a deployment rule: %q not in\n%s", want, got)
	}
}
