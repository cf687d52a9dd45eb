package lifecycle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/kptfile"
)

// incomplete is a registry whose first resync pass has not finished.
type incomplete struct{ registry }

func (incomplete) DownstreamsComplete() bool { return false }

// dependentsFixture publishes basens twice (v1, v2) and keep once, and
// returns a session whose registry knows: acme/edge-1 (public) at v1,
// acme/edge-2 (public) locked on v2's commit, two packages of private
// repositories, a package of acme/catalog itself tracking basens, and
// basens's own subpackage (not a dependent).
func dependentsFixture(t *testing.T) (*pubFixture, *core.Session, registry) {
	t.Helper()
	f := newPubFixture(t, pubNoApproval)
	c1 := f.commit("main", "", func(files map[string][]byte) {
		files["basens/Kptfile"] = pubKptfile("basens")
		files["basens/sub/Kptfile"] = pubKptfile("sub")
		files["keep/Kptfile"] = pubKptfile("keep")
	})
	publishLanding(t, f.h.Open(t), plumbing.NewHash(c1), nil)
	c2 := f.commit("main", "", func(files map[string][]byte) { files["basens/ns.yaml"] = pubNamespace("base") })
	publishLanding(t, f.h.Open(t), plumbing.NewHash(c2), nil)
	locked := tracking("acme/edge-2", "ns", "/basens/", "main", true)
	locked.Lock = &kptfile.GitLock{Ref: "main", Commit: c2}
	sub := tracking("acme/catalog", "basens/sub", "basens", "basens/v1", false)
	sub.Dir = "basens/sub"
	mirror := tracking("acme/catalog", "mirror", "basens", "basens/v2", false)
	mirror.Dir = "mirror"
	reg := registry{
		tracking("acme/edge-1", "base", "basens", "basens/v1", true),
		locked,
		tracking("acme/secret", "ns", "basens", "basens/v1", false),
		tracking("globex/vault", "ns", "basens", "basens/v2", false),
		mirror, sub,
		tracking("acme/edge-1", "other", "keep", "keep/v1", true),
	}
	s := f.h.Open(t)
	s.Downstreams = reg
	return f, s, reg
}

// TestDependentsReport: /porch dependents' answer names the downstreams
// of public repositories and of the repository itself, each at its
// revision (a lock's commit read as the revision on it) and whether it is
// behind; it counts those in private repositories without naming them,
// leaves the package's own subpackage out, and says when the registry has
// not seen every repository yet. An unknown package is refused with the
// nearest names.
func TestDependentsReport(t *testing.T) {
	f, s, reg := dependentsFixture(t)
	var rep *proposals.DependentsReport
	var err error
	calls := f.calls(func() { rep, err = proposals.Dependents(f.ctx, s, "basens") })
	if err != nil {
		t.Fatal(err)
	}
	if n := forge.SumCounted(calls); n != 0 {
		t.Errorf("the report made %d REST calls: %v", n, calls)
	}
	md := rep.Markdown()
	for _, want := range []string{
		"**5 downstream packages** are known to track `basens` of `acme/catalog` (latest revision `basens/v2`); 1 of those shown is behind.",
		"| `acme/catalog` | `mirror` | `v2` | latest |",
		"| `acme/edge-1` | `base` | `v1` | behind (1 revision) |",
		"| `acme/edge-2` | `ns` | `v2` | latest |",
		"And 2 in repositories this repository's readers cannot see",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	for _, never := range []string{"secret", "globex", "basens/sub", "other", "partial"} {
		if strings.Contains(md, never) {
			t.Errorf("the report names %q:\n%s", never, md)
		}
	}

	s.Downstreams = incomplete{reg}
	if rep, err = proposals.Dependents(f.ctx, s, "keep"); err != nil {
		t.Fatal(err)
	}
	if md := rep.Markdown(); !strings.Contains(md, "| `acme/edge-1` | `other` | `v1` | latest |") || !strings.Contains(md, "this list may be partial") {
		t.Errorf("keep's report with an incomplete registry:\n%s", md)
	}

	var re *core.RequestError
	if _, err := proposals.Dependents(f.ctx, s, "basen"); !errors.As(err, &re) || !strings.Contains(re.Msg, "There is no package `basen`") ||
		!strings.Contains(re.Msg, "Did you mean `basens`") {
		t.Errorf("an unknown package: %v", err)
	}
}

// TestDeletionProposalListsDependents: a deletion proposal of a package
// others track lists them in its body (named as the repository's readers
// may see them) and says an approver's acknowledgement is needed, for the
// same REST calls as any; a package nothing tracks gets the body it had.
func TestDeletionProposalListsDependents(t *testing.T) {
	f, s, _ := dependentsFixture(t)
	var pr hub.Pull
	var err error
	calls := f.calls(func() {
		pr, err = proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "basens", "alice")
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := forge.SumCounted(calls); n != 3 {
		t.Errorf("ProposeDeletion made %d REST calls: %v", n, calls)
	}
	for _, want := range []string{"### Downstream packages", "| `acme/edge-1` | `base` | `v1` | behind (1 revision) |",
		"And 2 in repositories", "`/porch approve --orphan-downstreams`", "`lifecycle.deletionWithDownstreams: require-ack`"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("the deletion proposal's body lacks %q:\n%s", want, pr.Body)
		}
	}
	if strings.Contains(pr.Body, "secret") || strings.Contains(pr.Body, "globex") {
		t.Errorf("the body names a private downstream:\n%s", pr.Body)
	}
	s = f.h.Open(t)
	s.Downstreams = registry{}
	plain, err := proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "keep", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Body, "Downstream") || strings.Contains(plain.Body, "orphan") {
		t.Errorf("a deletion nothing tracks:\n%s", plain.Body)
	}
}
