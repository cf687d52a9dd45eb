package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

func TestSessionReadsConfigFromTheDeploymentBranch(t *testing.T) {
	h := lifecycletest.New(t)
	h.Seed(t, map[string][]byte{".github/porchbot.yaml": []byte(
		"apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 2\n")})
	s := h.Open(t)
	if s.ConfigErr != nil || s.Config.Approvals.Required != 2 || s.DeploymentBranch != "main" {
		t.Fatalf("config %+v err %v branch %s", s.Config.Approvals, s.ConfigErr, s.DeploymentBranch)
	}
	// A broken config on main: the last good one stays in force, the error is kept.
	h.Seed(t, map[string][]byte{".github/porchbot.yaml": []byte(
		"apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\naprovals:\n  required: 3\n")})
	s = h.Open(t)
	if s.ConfigErr == nil || !strings.Contains(s.ConfigErr.Error(), ".github/porchbot.yaml:3:1") {
		t.Fatalf("want a positioned error, got %v", s.ConfigErr)
	}
	if s.Config.Approvals.Required != 2 {
		t.Fatalf("the last good config must stay in force, got required=%d", s.Config.Approvals.Required)
	}
}

func TestSessionMissingConfigIsDefaults(t *testing.T) {
	h := lifecycletest.New(t)
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	s := h.Open(t)
	if s.ConfigErr != nil || s.Config.Approvals.Required != 1 || s.Config.Lifecycle.PublishOn != "merge" {
		t.Fatalf("defaults: %+v %v", s.Config, s.ConfigErr)
	}
}

func TestCommitPackageCarriesTrailerAndLease(t *testing.T) {
	h := lifecycletest.New(t)
	base := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n")})
	s := h.Open(t)
	ctx := context.Background()
	tr := packages.Trailer{Package: "basens", WorkspaceName: "w1", Revision: "0", Task: &packages.Task{Type: "render"}}
	h1, err := s.CommitPackage(ctx, core.Identity{}, core.PackageCommit{Branch: "drafts/basens/w1",
		Parent: plumbing.NewHash(base), Lease: plumbing.ZeroHash, Dir: "basens",
		Files:   map[string][]byte{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: x\n")},
		Message: "Render basens", Trailer: tr})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := h.User("alice-token").Git.GetCommit(ctx, "acme", "catalog", h1.String())
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := packages.FindTrailer(c.GetMessage()); !ok || got.Package != "basens" || got.WorkspaceName != "w1" {
		t.Fatalf("trailer missing from %q", c.GetMessage())
	}
	if c.GetAuthor().GetName() != "porchbot[bot]" {
		t.Fatalf("author %q", c.GetAuthor().GetName())
	}
	// The same lease again: the branch has moved, nothing is overwritten.
	_, err = s.CommitPackage(ctx, core.Identity{}, core.PackageCommit{Branch: "drafts/basens/w1",
		Parent: plumbing.NewHash(base), Lease: plumbing.ZeroHash, Dir: "basens",
		Files: map[string][]byte{"Kptfile": []byte("x: 1\n")}, Message: "again", Trailer: tr})
	if !errors.Is(err, gitstore.ErrLeaseBroken) {
		t.Fatalf("want ErrLeaseBroken, got %v", err)
	}
}

// TestSessionLastGoodConfigComesFromHistory: a broken config on main, read
// by a fresh process (an Opener with an empty cache, its own git store),
// leaves in force the newest version in main's history that passes — not
// the defaults, not an older good version — and names its commit.
func TestSessionLastGoodConfigComesFromHistory(t *testing.T) {
	h := lifecycletest.New(t)
	const head = "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"
	h.Seed(t, map[string][]byte{config.Path: []byte(head + "approvals:\n  required: 2\n")})
	newest := plumbing.NewHash(h.Seed(t, map[string][]byte{config.Path: []byte(head + "lifecycle:\n  publishOn: never\napprovals:\n  required: 3\n")}))
	h.Seed(t, map[string][]byte{config.Path: []byte(head + "lifecycle:\n  publishOn: nevr\n")})
	h.Seed(t, map[string][]byte{config.Path: []byte(head + "lifecycle:\n  publishOn: merge\naprovals: {}\n")})
	broken := plumbing.NewHash(h.Seed(t, map[string][]byte{config.Path: []byte(head + "lifecycle:\n  publishOn: merge\naprovals: {}\n"),
		"README.md": []byte("x\n")}))

	for _, name := range []string{"fresh", "memo"} {
		opener := h.Replica(t)
		if name == "memo" {
			opener = h.Opener
		}
		s, err := opener.Open(context.Background(), h.Catalog())
		if err != nil {
			t.Fatal(err)
		}
		if s.ConfigErr == nil || s.DeploymentHead != broken {
			t.Fatalf("%s: want the broken head %s, got %s (err %v)", name, broken, s.DeploymentHead, s.ConfigErr)
		}
		if s.Config.Lifecycle.PublishOn != "never" || s.Config.Approvals.Required != 3 || s.ConfigInForce != newest {
			t.Fatalf("%s: in force publishOn=%s required=%d at %s, want never/3 at %s", name, s.Config.Lifecycle.PublishOn,
				s.Config.Approvals.Required, s.ConfigInForce, newest)
		}
		if v := s.ConfigVersion(); !strings.Contains(v, newest.String()) {
			t.Fatalf("%s: version %q does not name %s", name, v, newest)
		}
	}
}

// TestSessionNoGoodConfigInHistoryIsDefaults: a file that never passed
// leaves the defaults of the commit before it (no file there) in force.
func TestSessionNoGoodConfigInHistoryIsDefaults(t *testing.T) {
	h := lifecycletest.New(t)
	before := plumbing.NewHash(h.Seed(t, map[string][]byte{"README.md": []byte("x\n")}))
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n"), config.Path: []byte("kind: RepositoryConfig\nlifecycle:\n  publishOn: never\n")})
	s := h.Open(t)
	if s.ConfigErr == nil || s.Config.Lifecycle.PublishOn != "merge" || s.ConfigInForce != before {
		t.Fatalf("err %v publishOn %s in force at %s, want the defaults of %s", s.ConfigErr, s.Config.Lifecycle.PublishOn, s.ConfigInForce, before)
	}
}
