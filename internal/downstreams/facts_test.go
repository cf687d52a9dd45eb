package downstreams

import "testing"

// TestRegistryKnows: a new registry knows nothing; a visit with every fact
// known makes a repository known, one with facts left unknown does not;
// a pass over every installed repository, all known, completes the
// registry (a repository never visited then is not installed) and forgets
// a repository no longer installed; one unknown repository keeps the
// registry incomplete, and a later unknown visit is unknown by itself.
func TestRegistryKnows(t *testing.T) {
	const up = "https://github.com/acme/catalog"
	r := NewRegistry()
	if r.Known("acme/edge-1") || r.Complete() {
		t.Fatal("a new registry knows something")
	}
	r.Replace("acme/edge-1", []Downstream{ds("acme/edge-1", "upf", up, "upf")})
	r.ReplaceUnknown("acme/edge-2", []Downstream{ds("acme/edge-2", "upf", up, "upf")})
	if !r.Known("ACME/edge-1") || r.Known("acme/edge-2") || r.Known("acme/edge-3") {
		t.Fatalf("known: edge-1 %v edge-2 %v edge-3 %v", r.Known("acme/edge-1"), r.Known("acme/edge-2"), r.Known("acme/edge-3"))
	}

	r.PassDone([]string{"acme/edge-1", "acme/edge-2"})
	if r.Complete() || r.Known("acme/gone") {
		t.Fatal("complete with edge-2's facts unknown")
	}

	r.Replace("acme/edge-2", []Downstream{ds("acme/edge-2", "upf", up, "upf")})
	r.Replace("acme/old", []Downstream{ds("acme/old", "upf", up, "upf")})
	r.PassDone([]string{"acme/edge-1", "Acme/Edge-2"})
	if !r.Complete() || !r.Known("acme/never-installed") {
		t.Fatal("not complete after a pass with every repository known")
	}
	if got := names(r.Tracking(up)); len(got) != 2 || got[0] != "acme/edge-1:upf" || got[1] != "acme/edge-2:upf" {
		t.Fatalf("tracking %v: acme/old (not installed any more) should be forgotten", got)
	}
	if !r.Known("acme/old") {
		t.Fatal("a forgotten repository is not known to track nothing")
	}

	r.ReplaceUnknown("acme/edge-1", nil)
	if r.Known("acme/edge-1") || !r.Complete() || !r.Known("acme/edge-2") {
		t.Fatal("an unknown visit after completeness")
	}
}
