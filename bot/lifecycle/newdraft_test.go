package lifecycle_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
)

// ndTag creates revision tag name on the forge as porchbot publishes it
// (signed; REST as alice).
func (h *harness) ndTag(t *testing.T, repo, name, sha string) {
	t.Helper()
	owner, r, _ := strings.Cut(repo, "/")
	if err := lifecycletest.RevisionTag(context.Background(), h.User(forgetest.AliceToken), owner, r, name, sha); err != nil {
		t.Fatal(err)
	}
}

// ndTree reads a directory at a commit from a fresh session.
func ndTree(t *testing.T, s *core.Session, commit plumbing.Hash, dir string) map[string][]byte {
	t.Helper()
	files, err := s.Git.ReadTree(context.Background(), commit, dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func ndSameFiles(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// ndHeadMessage is the commit message of a branch's head on the forge.
func (h *harness) ndHeadMessage(t *testing.T, repo, branch string) (sha, msg string) {
	t.Helper()
	owner, r, _ := strings.Cut(repo, "/")
	b, _, err := h.User(forgetest.AliceToken).Repositories.GetBranch(context.Background(), owner, r, branch, 0)
	if err != nil {
		t.Fatalf("branch %s on the forge: %v", branch, err)
	}
	return b.GetCommit().GetSHA(), b.GetCommit().GetCommit().GetMessage()
}

func ndWantRequestError(t *testing.T, err error, substr string) {
	t.Helper()
	var re *core.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("want a RequestError containing %q, got %v", substr, err)
	}
	if !strings.Contains(re.Msg, substr) {
		t.Fatalf("RequestError %q does not contain %q", re.Msg, substr)
	}
}

const basensKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: base namespace\n"

func TestNewDraftWritesKptPkgInit(t *testing.T) {
	h := newHarness(t)
	base := h.Seed(t, map[string][]byte{"README.md": []byte("catalog\n")})
	s := h.Open(t)
	ctx := context.Background()
	d, err := proposals.NewDraft(ctx, s, proposals.NewDraftRequest{Package: "network/upf", Description: "User plane", RequestedBy: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Branch != "drafts/network/upf/v1" || d.Workspace != proposals.DefaultInitWorkspace || d.Base.String() != base || d.Task != "init" {
		t.Fatalf("draft %+v", d)
	}
	sha, msg := h.ndHeadMessage(t, "acme/catalog", d.Branch)
	if sha != d.Commit.String() {
		t.Fatalf("forge branch at %s, draft says %s", sha, d.Commit)
	}
	tr, ok := packages.FindTrailer(msg)
	if !ok || tr.Package != "network/upf" || tr.WorkspaceName != "v1" || tr.Task == nil || tr.Task.Type != "init" ||
		!strings.Contains(string(tr.Task.Spec), `"description":"User plane"`) {
		t.Fatalf("trailer of %q: %+v", msg, tr)
	}
	if !strings.Contains(msg, "Requested by @alice.") {
		t.Errorf("message %q does not name the requester", msg)
	}
	s2 := h.Open(t)
	got := ndTree(t, s2, d.Commit, "network/upf")
	want := kptfile.InitFiles(kptfile.InitOptions{Name: "upf", Description: "User plane"})
	if !ndSameFiles(got, want) {
		t.Fatalf("draft files %v, want kpt pkg init's %v", ndKeys(got), ndKeys(want))
	}
	if root := ndTree(t, s2, d.Commit, ""); string(root["README.md"]) != "catalog\n" {
		t.Fatalf("the rest of the tree must be kept: %v", ndKeys(root))
	}

	// Without --description: kpt pkg init's default.
	d2, err := proposals.NewDraft(ctx, s2, proposals.NewDraftRequest{Package: "basens", Workspace: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ndTree(t, s2, d2.Commit, "basens"); !ndSameFiles(got, kptfile.InitFiles(kptfile.InitOptions{Name: "basens", Description: kptfile.DefaultDescription})) {
		t.Fatalf("default description: %s", got["Kptfile"])
	}
	if d2.Branch != "drafts/basens/first" {
		t.Fatalf("workspace: %s", d2.Branch)
	}
}

func TestNewDraftRefusals(t *testing.T) {
	h := newHarness(t)
	h.Seed(t, map[string][]byte{
		"basens/Kptfile":         []byte(basensKptfile),
		"network/upf/Kptfile":    []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n"),
		"docs/index.md":          []byte("docs\n"),
		"apps/frontend/Kptfile":  []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: frontend\n"),
		".github/porchbot.yaml":  []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"),
		"unrelated/file.txt":     []byte("x\n"),
		"apps/frontend/svc.yaml": []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: fe\n"),
	})
	s := h.Open(t)
	ctx := context.Background()
	if _, err := proposals.NewDraft(ctx, s, proposals.NewDraftRequest{Package: "fresh"}); err != nil {
		t.Fatal(err)
	}
	s = h.Open(t)
	for _, tc := range []struct {
		req  proposals.NewDraftRequest
		want string
	}{
		{proposals.NewDraftRequest{Package: "basens"}, "already exists on `main`"},
		{proposals.NewDraftRequest{Package: "basens/sub"}, "inside package `basens`"},
		{proposals.NewDraftRequest{Package: "network"}, "package `network/upf` exists inside `network`"},
		{proposals.NewDraftRequest{Package: "docs"}, "`docs` already exists on `main` and is not a package"},
		{proposals.NewDraftRequest{Package: "fresh"}, "draft `drafts/fresh/v1` already exists"},
		{proposals.NewDraftRequest{Package: "../escape"}, "invalid package name"},
		{proposals.NewDraftRequest{Package: ".github"}, "invalid package name"},
		{proposals.NewDraftRequest{Package: "ok", Workspace: "Bad_WS"}, "invalid workspace name"},
	} {
		_, err := proposals.NewDraft(ctx, s, tc.req)
		ndWantRequestError(t, err, tc.want)
	}
}

func TestNewDraftInEmptyRepository(t *testing.T) {
	h := newHarness(t)
	s := h.Open(t)
	_, err := proposals.NewDraft(context.Background(), s, proposals.NewDraftRequest{Package: "basens"})
	ndWantRequestError(t, err, "has no commits yet")
}

func TestNewDraftUnderPackagesRoot(t *testing.T) {
	h := newHarness(t)
	h.Seed(t, map[string][]byte{".github/porchbot.yaml": []byte(
		"apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\npackages:\n  root: pkgs\n")})
	s := h.Open(t)
	d, err := proposals.NewDraft(context.Background(), s, proposals.NewDraftRequest{Package: "basens"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Dir != "pkgs/basens" || d.Branch != "drafts/basens/v1" {
		t.Fatalf("dir %s branch %s", d.Dir, d.Branch)
	}
	if _, ok := ndTree(t, h.Open(t), d.Commit, "pkgs/basens")["Kptfile"]; !ok {
		t.Fatal("no Kptfile under packages.root")
	}
}

func TestNewDraftByEditCopiesPublishedRevisions(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	v1 := map[string][]byte{"basens/Kptfile": []byte(basensKptfile), "basens/ns.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: v1\n")}
	sha1 := h.Seed(t, v1)
	h.ndTag(t, "acme/catalog", "basens/v1", sha1)
	v2 := map[string][]byte{"basens/Kptfile": []byte(basensKptfile), "basens/ns.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: v2\n")}
	sha2 := h.Seed(t, v2)
	h.ndTag(t, "acme/catalog", "basens/v2", sha2)
	// An unpublished change on main after v2.
	head := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte(basensKptfile), "basens/ns.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: wip\n")})

	s := h.Open(t)
	d, err := proposals.EditDraft(ctx, s, proposals.EditRequest{Package: "basens", RequestedBy: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Branch != "drafts/basens/v3" || d.Source != "basens/v2" || d.SourceCommit.String() != sha2 || d.Base.String() != head || d.Unchanged {
		t.Fatalf("edit: %+v", d)
	}
	if got := ndTree(t, h.Open(t), d.Commit, "basens"); string(got["ns.yaml"]) != string(v2["basens/ns.yaml"]) {
		t.Fatalf("edit copied %s", got["ns.yaml"])
	}
	_, msg := h.ndHeadMessage(t, "acme/catalog", d.Branch)
	tr, _ := packages.FindTrailer(msg)
	if tr.Task == nil || tr.Task.Type != "edit" || !strings.Contains(string(tr.Task.Spec), `"sourceRef":{"name":"basens/v2"}`) || tr.WorkspaceName != "v3" {
		t.Fatalf("trailer %+v of %q", tr, msg)
	}

	// The default workspace is taken: the next one is v3-2; --from v1.
	s = h.Open(t)
	d2, err := proposals.EditDraft(ctx, s, proposals.EditRequest{Package: "basens", Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d2.Branch != "drafts/basens/v3-2" || d2.Source != "basens/v1" {
		t.Fatalf("second edit: %+v", d2)
	}

	// Rollback to v1 with an explicit workspace.
	d3, err := proposals.EditDraft(ctx, s, proposals.EditRequest{Package: "basens", Revision: 1, Rollback: true, Workspace: "back-to-1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ndTree(t, h.Open(t), d3.Commit, "basens"); !ndSameFiles(got, map[string][]byte{"Kptfile": v1["basens/Kptfile"], "ns.yaml": v1["basens/ns.yaml"]}) {
		t.Fatalf("rollback content %v", got)
	}
	if _, msg := h.ndHeadMessage(t, "acme/catalog", d3.Branch); !strings.HasPrefix(msg, "Rollback basens to v1") {
		t.Fatalf("rollback message %q", msg)
	}

	for _, tc := range []struct {
		req  proposals.EditRequest
		want string
	}{
		{proposals.EditRequest{Package: "basens", Revision: 7}, "has no revision `v7` (published: `v1`, `v2`)"},
		{proposals.EditRequest{Package: "nothing"}, "There is no package `nothing` on `main`"},
		{proposals.EditRequest{Package: "basens", Workspace: "back-to-1"}, "already exists"},
	} {
		_, err := proposals.EditDraft(ctx, s, tc.req)
		ndWantRequestError(t, err, tc.want)
	}
}

func TestNewDraftByEditOfTheRevisionInForceIsUnchanged(t *testing.T) {
	h := newHarness(t)
	sha := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte(basensKptfile)})
	h.ndTag(t, "acme/catalog", "basens/v1", sha)
	s := h.Open(t)
	d, err := proposals.EditDraft(context.Background(), s, proposals.EditRequest{Package: "basens"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Unchanged || d.Commit.IsZero() || d.Commit.String() == sha {
		t.Fatalf("an edit of the revision in force is an (empty) commit of its own: %+v", d)
	}
}

func ndKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
