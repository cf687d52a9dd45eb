package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

func TestSessionReadsConfigFromTheDeploymentBranch(t *testing.T) {
	h := newHarness(t)
	h.seed(t, map[string][]byte{".github/porchbot.yaml": []byte(
		"apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 2\n")})
	s := h.open(t)
	if s.ConfigErr != nil || s.Config.Approvals.Required != 2 || s.DeploymentBranch != "main" {
		t.Fatalf("config %+v err %v branch %s", s.Config.Approvals, s.ConfigErr, s.DeploymentBranch)
	}
	// A broken config on main: the last good one stays in force, the error is kept.
	h.seed(t, map[string][]byte{".github/porchbot.yaml": []byte(
		"apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\naprovals:\n  required: 3\n")})
	s = h.open(t)
	if s.ConfigErr == nil || !strings.Contains(s.ConfigErr.Error(), ".github/porchbot.yaml:3:1") {
		t.Fatalf("want a positioned error, got %v", s.ConfigErr)
	}
	if s.Config.Approvals.Required != 2 {
		t.Fatalf("the last good config must stay in force, got required=%d", s.Config.Approvals.Required)
	}
}

func TestSessionMissingConfigIsDefaults(t *testing.T) {
	h := newHarness(t)
	h.seed(t, map[string][]byte{"README.md": []byte("x\n")})
	s := h.open(t)
	if s.ConfigErr != nil || s.Config.Approvals.Required != 1 || s.Config.Lifecycle.PublishOn != "merge" {
		t.Fatalf("defaults: %+v %v", s.Config, s.ConfigErr)
	}
}

func TestCommitPackageCarriesTrailerAndLease(t *testing.T) {
	h := newHarness(t)
	base := h.seed(t, map[string][]byte{"basens/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n")})
	s := h.open(t)
	ctx := context.Background()
	tr := packages.Trailer{Package: "basens", WorkspaceName: "w1", Revision: "0", Task: &packages.Task{Type: "render"}}
	h1, err := s.CommitPackage(ctx, lifecycle.Identity{}, lifecycle.PackageCommit{Branch: "drafts/basens/w1",
		Parent: plumbing.NewHash(base), Lease: plumbing.ZeroHash, Dir: "basens",
		Files:   map[string][]byte{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: x\n")},
		Message: "Render basens", Trailer: tr})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := h.user("alice-token").Git.GetCommit(ctx, "acme", "catalog", h1.String())
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
	_, err = s.CommitPackage(ctx, lifecycle.Identity{}, lifecycle.PackageCommit{Branch: "drafts/basens/w1",
		Parent: plumbing.NewHash(base), Lease: plumbing.ZeroHash, Dir: "basens",
		Files: map[string][]byte{"Kptfile": []byte("x: 1\n")}, Message: "again", Trailer: tr})
	if !errors.Is(err, gitstore.ErrLeaseBroken) {
		t.Fatalf("want ErrLeaseBroken, got %v", err)
	}
}
