package updates

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/update"
)

func TestLockRevision(t *testing.T) {
	for _, c := range []struct {
		pkg, ref string
		want     int
	}{
		{"network/upf", "network/upf/v3", 3},
		{"network/upf", "v2", 2},
		{"network/upf", "basens/v4", 0},
		{"", "basens/v4", 4},
		{"network/upf", "main", 0},
		{"network/upf", "0123456789abcdef0123456789abcdef01234567", 0},
	} {
		if got := LockRevision(c.pkg, c.ref); got != c.want {
			t.Errorf("lockRevision(%q, %q) = %d, want %d", c.pkg, c.ref, got, c.want)
		}
	}
}

// TestUpdateBodyMarker: the body's first line names the proposed revision
// (the durable record a closed pull request declines), read back as such;
// a body without it, or edited to another form, names none.
func TestUpdateBodyMarker(t *testing.T) {
	s := &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog"}}
	plan := &Plan{Upstream: UpstreamRevision{Session: s, Package: "network/upf", Dir: "network/upf", Revision: 7},
		Package: "upf", FromRef: "network/upf/v5", From: 5, OnConflict: "upstream",
		Files:     map[string][]byte{},
		Conflicts: []update.Conflict{{File: "d.yaml", Resource: "apps/v1 Deployment upf/upf", Field: "spec.replicas", Local: "2|3", Upstream: "4", Taken: "upstream"}}}
	body := Body(plan, "https://github.example/", []UpstreamNote{{Revision: 6, Tag: "network/upf/v6", Body: "six"}, {Revision: 7, Tag: "network/upf/v7", URL: "https://x/r/7", Body: "seven"}})
	if got := updateMarkerRevision(body); got != 7 {
		t.Fatalf("marker revision %d in:\n%s", got, body)
	}
	for _, want := range []string{"[`network/upf/v5`](https://github.example/acme/catalog/tree/network/upf/v5)", "`network/upf/v7`", "six", `<summary><a href="https://x/r/7"><code>network/upf/v7</code></a></summary>`,
		"| `d.yaml` | `apps/v1 Deployment upf/upf` | `spec.replicas` | `2\\|3` | `4` | upstream |", "/porch upgrade upf"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	for _, b := range []string{"", "Updates upf", "<!-- porchbot:update acme/catalog/network/upf@vx -->"} {
		if got := updateMarkerRevision(b); got != 0 {
			t.Errorf("updateMarkerRevision(%q) = %d", b, got)
		}
	}
}
