package index

import (
	"reflect"
	"strings"
	"testing"
)

// TestPackageDownstreamsKeepsWhatIsUnknown: what the registry knows is
// listed; the previous index's entries are kept only for repositories
// whose facts are unknown, without doubles; nil Downstreams keeps all.
func TestPackageDownstreamsKeepsWhatIsUnknown(t *testing.T) {
	prev := []Downstream{
		{Repository: "acme/edge-1", Package: "upf", Revision: 1},     // unknown: kept
		{Repository: "acme/edge-2", Package: "upf", Revision: 1},     // known, no longer tracking: dropped
		{Repository: "Acme/Edge-3", Package: "upf", Revision: 1},     // unknown, listed afresh: once, as now
		{Repository: "acme/edge-4", Package: "upf-old", Revision: 1}, // known, tracking another package now
	}
	unknown := func(repo string) bool {
		return strings.EqualFold(repo, "acme/edge-1") || strings.EqualFold(repo, "acme/edge-3")
	}
	fresh := map[string][]Downstream{"network/upf": {
		{Repository: "acme/edge-3", Package: "upf", Revision: 2},
		{Repository: "acme/edge-4", Package: "upf", Revision: 2},
	}}
	for _, c := range []struct {
		name string
		opts Options
		want []Downstream
	}{
		{"unknown kept", Options{Downstreams: fresh, Unknown: unknown}, []Downstream{
			{Repository: "acme/edge-1", Package: "upf", Revision: 1},
			{Repository: "acme/edge-3", Package: "upf", Revision: 2},
			{Repository: "acme/edge-4", Package: "upf", Revision: 2},
		}},
		{"all known", Options{Downstreams: fresh}, []Downstream{
			{Repository: "acme/edge-3", Package: "upf", Revision: 2},
			{Repository: "acme/edge-4", Package: "upf", Revision: 2},
		}},
		{"none known to track, all unknown", Options{Downstreams: map[string][]Downstream{}, Unknown: func(string) bool { return true }}, sortedDownstreams(prev)},
		{"offline build", Options{}, sortedDownstreams(prev)},
	} {
		if got := packageDownstreams(c.opts, prev, "network/upf"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
