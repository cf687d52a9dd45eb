package lifecycle_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
)

// passHooks records the passes ResyncLoop reports done.
type passHooks struct {
	*recordingHooks
	mu     sync.Mutex
	passes [][]string
	done   func()
}

func (p *passHooks) ResyncPassDone(repos []core.Repo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var names []string
	for _, r := range repos {
		names = append(names, r.FullName())
	}
	p.passes = append(p.passes, names)
	if len(p.passes) == 2 {
		p.done()
	}
}

// TestResyncLoopReportsCompletePasses: a pass whose listing succeeded is
// reported done with every repository listed (the downstream registry is
// then complete); a pass whose listing failed is not.
func TestResyncLoopReportsCompletePasses(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"")
	f.commit("main", "", func(files map[string][]byte) { files["loop/Kptfile"] = pubKptfile("loop") })
	good := f.h.Catalog()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hooks := &passHooks{recordingHooks: &recordingHooks{}, done: cancel}
	var (
		mu     sync.Mutex
		listed int
	)
	list := func(context.Context) ([]core.Repo, error) {
		mu.Lock()
		defer mu.Unlock()
		listed++
		if listed == 2 {
			return []core.Repo{good}, errors.New("the second page failed")
		}
		return []core.Repo{good}, nil
	}
	done := make(chan error, 1)
	go func() {
		done <- resync.Loop(ctx, 20*time.Millisecond, list, f.h.Opener.Open, resync.Deps{Logger: f.h.Log, Hooks: hooks})
	}()
	awaitLoop(t, done)
	mu.Lock()
	defer mu.Unlock()
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if listed < 3 || len(hooks.passes) != 2 || len(hooks.passes[0]) != 1 || hooks.passes[0][0] != good.FullName() {
		t.Fatalf("%d listings, passes reported %v", listed, hooks.passes)
	}
}

// awaitLoop waits for ResyncLoop to return (its test cancelled it) and
// fails on its error, or when it does not stop within a minute.
func awaitLoop(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the loop did not stop")
	}
}
