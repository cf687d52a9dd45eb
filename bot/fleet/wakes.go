package fleet

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// wakes are the steps asked for when a soak ends: one timer per rollout,
// the earliest asked kept.
type wakes struct {
	mu     sync.Mutex
	timers map[string]wake
}

type wake struct {
	at    time.Time
	timer *time.Timer
}

// Wake steps pkg's rollout in s's repository at at (the controller's
// Wake). A process that stops forgets its wakes; the resync steps every
// rollout anyway.
func (r *Rollouts) Wake(s *core.Session, pkg string, at time.Time) {
	repo := s.Repo
	key := strings.ToLower(repo.FullName()) + "\x00" + pkg
	r.wakes.mu.Lock()
	defer r.wakes.mu.Unlock()
	if r.wakes.timers == nil {
		r.wakes.timers = map[string]wake{}
	}
	if w, ok := r.wakes.timers[key]; ok && !w.at.After(at) {
		return
	} else if ok {
		w.timer.Stop()
	}
	r.wakes.timers[key] = wake{at: at, timer: time.AfterFunc(time.Until(at), func() {
		r.wakes.mu.Lock()
		delete(r.wakes.timers, key)
		r.wakes.mu.Unlock()
		ctx := context.Background()
		s, err := r.Open(ctx, repo)
		if err != nil {
			r.Log.WithError(err).WithField("repo", repo.FullName()).Warn("rollout wake: repository not opened")
			return
		}
		if _, err := r.Controller.Step(ctx, s, pkg); err != nil {
			s.Log.WithError(err).WithField("package", pkg).Warn("rollout wake")
		}
	})}
}
