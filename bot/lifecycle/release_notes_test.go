package lifecycle_test

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/treediff"
)

func TestReleaseResourcesDiff(t *testing.T) {
	old := map[string][]byte{
		"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"),
		"all.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  k: v\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: ns\ndata:\n  k: v\n"),
		"gone.yaml":  []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n"),
		"README.md":  []byte("not yaml\n"),
		"sub/c.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  replicas: 1\n"),
	}
	new := map[string][]byte{
		"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\ninfo:\n  description: changed\n"),
		// a: only a comment and formatting change; b: its data changed.
		"all.yaml": []byte("# a comment\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\ndata:\n  k: v\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: ns\ndata:\n  k: w\n"),
		"sub/c.yaml":  []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  replicas: 1\n"),
		"added.yml":   []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n"),
		"broken.yaml": []byte("apiVersion: v1\nkind: [\n"),
	}
	d := publish.DiffResources(old, new)
	keys := func(ks []publish.ResourceKey) string {
		var s []string
		for _, k := range ks {
			s = append(s, k.String())
		}
		return strings.Join(s, ";")
	}
	if got := keys(d.Added); got != "rbac.authorization.k8s.io/v1/ClusterRole r" {
		t.Fatalf("added %q", got)
	}
	if got := keys(d.Changed); got != "v1/ConfigMap ns/b" {
		t.Fatalf("changed %q (a comment is no change; the Kptfile is not a resource)", got)
	}
	if got := keys(d.Removed); got != "v1/Namespace ns" {
		t.Fatalf("removed %q", got)
	}
	if strings.Join(d.Unparsed, ",") != "broken.yaml" {
		t.Fatalf("unparsed %v", d.Unparsed)
	}
	if d := publish.DiffResources(nil, old); len(d.Added) != 4 || len(d.Removed)+len(d.Changed) != 0 {
		t.Fatalf("first revision: %+v", d)
	}

	fd := treediff.Files(old, new)
	if strings.Join(fd.Added, ",") != "added.yml,broken.yaml" || strings.Join(fd.Modified, ",") != "Kptfile,all.yaml" ||
		strings.Join(fd.Removed, ",") != "README.md,gone.yaml" {
		t.Fatalf("files %+v", fd)
	}
}

func TestReleaseNotesMarkdown(t *testing.T) {
	n := publish.ReleaseNotes{Package: "net/upf", Revision: 3, Tag: "net/upf/v3", PreviousTag: "net/upf/v2",
		Commit:    "0123456789abcdef0123456789abcdef01234567",
		PR:        &publish.ReleasePR{Number: 7, Title: "Bump [upf]", URL: "https://example.com/pull/7", Author: "alice"},
		Approvers: []string{"bob", "carol"},
		Files:     treediff.Diff{Modified: []string{"cm.yaml"}},
		Resources: publish.ResourcesDiff{Changed: []publish.ResourceKey{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "cfg"}}},
	}
	md := n.Markdown()
	for _, want := range []string{"Revision 3 of package `net/upf`", "[#7 Bump \\[upf\\]](https://example.com/pull/7) by @alice",
		"Previous revision: `net/upf/v2`", "- @bob\n- @carol\n", "Changed (1):\n- `v1/ConfigMap ns/cfg`", "Modified (1):\n- `cm.yaml`"} {
		if !strings.Contains(md, want) {
			t.Fatalf("notes lack %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Added (") || strings.Contains(md, "Removed (") {
		t.Fatalf("empty sections shown:\n%s", md)
	}
	direct := publish.ReleaseNotes{Package: "p", Revision: 1, Tag: "p/v1"}.Markdown()
	for _, want := range []string{"direct push", "First revision", "No resource added, changed or removed", "No file changed"} {
		if !strings.Contains(direct, want) {
			t.Fatalf("direct-push notes lack %q:\n%s", want, direct)
		}
	}
	if strings.Contains(direct, "Approved by") {
		t.Fatalf("direct-push notes list approvers:\n%s", direct)
	}

	many := make([]string, 5000)
	for i := range many {
		many[i] = strings.Repeat("x", 40)
	}
	big := publish.ReleaseNotes{Package: "p", Revision: 1, Files: treediff.Diff{Added: many}}.Markdown()
	if len(big) > 125000 || !strings.Contains(big, "and 4800 more") {
		t.Fatalf("long notes: %d bytes", len(big))
	}
}

func TestReleaseApproversFromReviews(t *testing.T) {
	review := func(login, state string) hub.Review {
		return hub.Review{User: hub.User{Login: login}, State: state}
	}
	reviews := []hub.Review{
		review("bob", "APPROVED"),
		review("carol", "APPROVED"),
		review("carol", "CHANGES_REQUESTED"), // carol's latest decision
		review("dave", "CHANGES_REQUESTED"),
		review("dave", "APPROVED"),
		review("bob", "COMMENTED"), // a comment does not undo bob's approval
		review("alice", "APPROVED"),
	}
	if got := strings.Join(publish.ApproversFromReviews(reviews, "alice", false), ","); got != "bob,dave" {
		t.Fatalf("approvers %q", got)
	}
	if got := strings.Join(publish.ApproversFromReviews(reviews, "alice", true), ","); got != "alice,bob,dave" {
		t.Fatalf("approvers with self-approval %q", got)
	}
}
