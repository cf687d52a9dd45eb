package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/index"
)

// Webhooks lost: two merges and a direct push, nobody called Publish. The
// resync tags everything in history order; a second resync is cheap.
func TestResyncPublishesLostLandingsInOrder(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"")
	f.commit("drafts/svc/w1", "", func(files map[string][]byte) {
		files["svc/Kptfile"] = pubKptfile("svc")
		files["svc/cm.yaml"] = pubConfigMap("svc", "cfg", "1")
	})
	m1, _ := f.land("drafts/svc/w1", "Create svc")
	f.commit("drafts/svc/w2", "", func(files map[string][]byte) { files["svc/cm.yaml"] = pubConfigMap("svc", "cfg", "2") })
	m2, pr2 := f.land("drafts/svc/w2", "Edit svc")
	c3 := plumbing.NewHash(f.commit("main", "", func(files map[string][]byte) {
		files["svc/cm.yaml"] = pubConfigMap("svc", "cfg", "3")
		files["other/Kptfile"] = pubKptfile("other")
	}))

	s := f.h.Open(t)
	var (
		rep *resync.Report
		err error
	)
	calls := f.calls(func() { rep, err = resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("resync with 4 landings: %d REST calls %v", forge.SumCounted(calls), calls)
	var tags []string
	for _, r := range rep.Published {
		tags = append(tags, r.Tag)
	}
	if strings.Join(tags, ",") != "other/v1,svc/v1,svc/v2,svc/v3" {
		t.Fatalf("resync published %v", tags)
	}
	f.wantTags(map[string]plumbing.Hash{"svc/v1": m1, "svc/v2": m2, "svc/v3": c3, "other/v1": c3})
	if rel := f.release("svc/v2"); rel == nil || !strings.Contains(rel.Body, "@bob") || !strings.Contains(rel.Body, pr2.GetHTMLURL()) {
		t.Fatalf("release of svc/v2 (found its pull request?) %+v", rel)
	}
	if rel := f.release("svc/v3"); rel == nil || !strings.Contains(rel.Body, "direct push") {
		t.Fatalf("release of svc/v3 %+v", rel)
	}

	// Nothing left to do: the session's fetch, one releases call.
	calls = f.calls(func() {
		s = f.h.Open(t)
		rep, err = resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	})
	if err != nil || len(rep.Published) != 0 {
		t.Fatalf("second resync: %+v %v", rep, err)
	}
	t.Logf("idle resync (open + resync): %d REST calls %v", forge.SumCounted(calls), calls)
	if n := forge.SumCounted(calls); n > 1 {
		t.Fatalf("an idle resync made %d REST calls: %v", n, calls)
	}
}

// A crash between the tag and its release: the resync makes the release.
func TestResyncRepairsAMissingRelease(t *testing.T) {
	f := newPubFixture(t, "")
	c := f.commit("main", "", func(files map[string][]byte) { files["p/Kptfile"] = pubKptfile("p") })
	if err := lifecycletest.RevisionTag(f.ctx, f.alice, pubOwner, pubRepo, "p/v1", c); err != nil {
		t.Fatal(err)
	}
	s := f.h.Open(t)
	rep, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.ReleasesRepaired, ",") != "p/v1" || len(rep.Published) != 0 || f.release("p/v1") == nil {
		t.Fatalf("repair: %+v", rep)
	}
	if as := f.release("p/v1").Assets; len(as) != 1 || as[0].Name != index.FileName {
		t.Fatalf("the repaired release carries no index: %+v", as)
	}
	rep, err = resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	if err != nil || len(rep.ReleasesRepaired) != 0 {
		t.Fatalf("second repair: %+v %v", rep, err)
	}
}

type recordingHooks struct {
	mu        sync.Mutex
	rendered  []string
	evaluated []int
	failOn    string
}

func (r *recordingHooks) RenderDraft(_ context.Context, _ *core.Session, branch string, head plumbing.Hash) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if branch == r.failOn {
		return errors.New("render exploded")
	}
	r.rendered = append(r.rendered, branch+"@"+head.String())
	return nil
}

func (r *recordingHooks) EvaluateProposal(_ context.Context, _ *core.Session, pr hub.Pull) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evaluated = append(r.evaluated, pr.Number)
	return nil
}

func TestResyncRendersUnrenderedDraftsAndEvaluatesProposals(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"")
	base := f.commit("main", "", func(files map[string][]byte) { files["app/Kptfile"] = pubKptfile("app") })
	s := f.h.Open(t)
	publishLanding(t, s, plumbing.NewHash(base), nil)

	unrendered := f.commit("drafts/app/w1", base, func(files map[string][]byte) { files["app/a.yaml"] = pubNamespace("a") })
	rendered := f.commit("drafts/app/w2", base, func(files map[string][]byte) { files["app/b.yaml"] = pubNamespace("b") })
	f.commit("drafts/app/w3", base, func(files map[string][]byte) { files["app/c.yaml"] = pubNamespace("c") })
	f.commit("drafts/app/delete", base, func(files map[string][]byte) { delete(files, "app/Kptfile") })
	f.commit("feature/x", base, func(files map[string][]byte) { files["x.txt"] = []byte("x") })
	proposal := f.propose("drafts/app/w2", "Edit app")
	f.propose("feature/x", "Not a proposal")

	// The App reports a render check on w2's head.
	if _, err := s.Hub.CreateCheckRun(f.ctx, pubOwner, pubRepo, hub.CheckRunWrite{
		Name: "porchbot/render", HeadSHA: rendered, Status: "completed", Conclusion: "success"}); err != nil {
		t.Fatal(err)
	}

	s = f.h.Open(t)
	hooks := &recordingHooks{failOn: "drafts/app/w3"}
	var (
		rep *resync.Report
		err error
	)
	calls := f.calls(func() {
		rep, err = resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{Hooks: hooks})
	})
	t.Logf("resync with hooks: %d REST calls %v", forge.SumCounted(calls), calls)
	if err == nil || !strings.Contains(err.Error(), "render exploded") {
		t.Fatalf("a failing hook must be reported, got %v", err)
	}
	if strings.Join(hooks.rendered, ",") != "drafts/app/w1@"+unrendered {
		t.Fatalf("rendered %v", hooks.rendered)
	}
	if len(hooks.evaluated) != 1 || hooks.evaluated[0] != proposal.GetNumber() {
		t.Fatalf("evaluated %v", hooks.evaluated)
	}
	if rep.DraftsChecked != 3 {
		t.Fatalf("checked %d drafts, want 3 (the deletion draft is skipped)", rep.DraftsChecked)
	}
	// One check-runs call per draft, one list of pull requests, one of releases.
	if n := forge.SumCounted(calls); n != 5 {
		t.Fatalf("resync with hooks made %d REST calls: %v", n, calls)
	}

	// Bounded: with MaxDrafts 1 only the newest draft head is looked at.
	hooks = &recordingHooks{}
	rep, err = resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{Hooks: hooks, MaxDrafts: 1})
	if err != nil || rep.DraftsChecked != 1 || rep.DraftsOverLimit != 2 {
		t.Fatalf("bounded resync: %+v %v", rep, err)
	}
}

func TestResyncLoopSurvivesBrokenRepositories(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"")
	c := f.commit("main", "", func(files map[string][]byte) { files["loop/Kptfile"] = pubKptfile("loop") })
	good := f.h.Catalog()
	broken := core.Repo{Owner: "acme", Name: "broken"}
	panicky := core.Repo{Owner: "acme", Name: "panicky"}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu      sync.Mutex
		reports = map[string]int{}
		failed  = map[string]int{}
	)
	open := func(ctx context.Context, r core.Repo) (*core.Session, error) {
		switch r.Name {
		case "broken":
			return nil, errors.New("no such repository")
		case "panicky":
			panic("boom")
		}
		return f.h.Opener.Open(ctx, r)
	}
	listed := 0
	list := func(context.Context) ([]core.Repo, error) {
		mu.Lock()
		defer mu.Unlock()
		listed++
		if listed == 2 {
			return nil, errors.New("listing failed once")
		}
		return []core.Repo{broken, panicky, good}, nil
	}
	done := make(chan error, 1)
	go func() {
		done <- resync.Loop(ctx, 20*time.Millisecond, list, open, resync.Deps{Logger: f.h.Log,
			OnReport: func(r core.Repo, rep *resync.Report, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed[r.Name]++
				} else if rep != nil {
					reports[r.Name]++
				}
				if reports["catalog"] >= 2 {
					cancel()
				}
			}})
	}()
	awaitLoop(t, done)
	mu.Lock()
	defer mu.Unlock()
	if reports["catalog"] < 2 || failed["broken"] < 2 || failed["panicky"] < 2 {
		t.Fatalf("reports %v failures %v", reports, failed)
	}
	f.wantTags(map[string]plumbing.Hash{"loop/v1": plumbing.NewHash(c)})
}
