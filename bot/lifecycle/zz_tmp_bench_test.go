package lifecycle_test

import (
	"fmt"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/bot/lifecycle"
	"github.com/porchbot/porchbot/internal/gitstore"
)

func TestTmpWalkCost(t *testing.T) {
	f := newPubFixture(t, "")
	s := f.h.open(t)
	ctx := f.ctx
	head := s.DeploymentHead
	sig := object.Signature{Name: "x", Email: "x@x", When: time.Now()}
	const npkg, ncommits = 50, 1000
	for i := 0; i < npkg; i++ {
		var err error
		head, err = s.Git.Commit(ctx, gitstore.CommitRequest{Parent: head, Dir: fmt.Sprintf("p%02d", i),
			Files: map[string][]byte{"Kptfile": pubKptfile("p"), "a.yaml": pubNamespace("a")}, Message: "m", Author: sig})
		if err != nil {
			t.Fatal(err)
		}
		h := head
		name := fmt.Sprintf("p%02d", i)
		s.Git.With(ctx, func(r *git.Repository) error {
			return r.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName("refs/tags/"+name+"/v1"), h))
		})
	}
	for i := 0; i < ncommits; i++ {
		var err error
		head, err = s.Git.Commit(ctx, gitstore.CommitRequest{Parent: head, Dir: "other",
			Files: map[string][]byte{"x": []byte(fmt.Sprint(i))}, Message: "m", Author: sig})
		if err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	tags, _ := lifecycle.ReadRevisionTags(ctx, s.Git)
	hs, err := lifecycle.UntaggedLandings(ctx, s.Git, "", head, tags)
	t.Logf("UntaggedLandings %d packages x %d commits: %v, pending %d, err %v", npkg, ncommits, time.Since(start), len(hs), err)
}
