package forge

import (
	"strings"
	"sync"
	"time"
)

// Hook is a repository webhook (GitHub's "web" hook): a user's own
// receiver subscribed to some of a repository's events.
type Hook struct {
	ID          int64
	RepoID      int64
	Active      bool
	Events      []string // "*" is every event
	URL         string
	ContentType string // json | form
	Secret      string
	InsecureSSL string // "0" | "1"
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// target is where the hook's deliveries go.
func (h Hook) target(repo *Repo) hookTarget {
	return hookTarget{url: h.URL, contentType: h.ContentType, secret: []byte(h.Secret),
		targetType: "repository", targetID: repo.ID}
}

// hookStore holds the repositories' hooks under a lock of its own, so
// that emit (called with or without a repository's lock) can read them.
type hookStore struct {
	mu     sync.Mutex
	byRepo map[int64][]*Hook
}

// maxHooksPerRepo is GitHub's limit on a repository's webhooks per event.
const maxHooksPerRepo = 20

func (s *hookStore) list(repoID int64) []Hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Hook{}
	for _, h := range s.byRepo[repoID] {
		c := *h
		c.Events = append([]string(nil), h.Events...)
		out = append(out, c)
	}
	return out
}

func (s *hookStore) get(repoID, id int64) (Hook, bool) {
	for _, h := range s.list(repoID) {
		if h.ID == id {
			return h, true
		}
	}
	return Hook{}, false
}

// subscribed are the active hooks of a repository that hear event.
func (s *hookStore) subscribed(repoID int64, event string) []Hook {
	var out []Hook
	for _, h := range s.list(repoID) {
		if h.Active && (containsFold(h.Events, "*") || containsFold(h.Events, event)) {
			out = append(out, h)
		}
	}
	return out
}

// add stores a new hook; errAlreadyExists when one has the same URL, or
// errTooManyHooks past GitHub's limit.
func (s *hookStore) add(h *Hook) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byRepo == nil {
		s.byRepo = map[int64][]*Hook{}
	}
	hooks := s.byRepo[h.RepoID]
	for _, o := range hooks {
		if strings.EqualFold(o.URL, h.URL) {
			return errAlreadyExists
		}
	}
	if len(hooks) >= maxHooksPerRepo {
		return errTooManyHooks
	}
	s.byRepo[h.RepoID] = append(hooks, h)
	return nil
}

// update applies change to a hook under the lock; false if it is gone.
func (s *hookStore) update(repoID, id int64, change func(*Hook)) (Hook, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.byRepo[repoID] {
		if h.ID == id {
			change(h)
			return *h, true
		}
	}
	return Hook{}, false
}

func (s *hookStore) remove(repoID, id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	hooks := s.byRepo[repoID]
	for i, h := range hooks {
		if h.ID == id {
			s.byRepo[repoID] = append(hooks[:i:i], hooks[i+1:]...)
			return true
		}
	}
	return false
}

// hookDeliveries are a hook's deliveries, newest first.
func (d *deliverer) hookDeliveries(hookID int64) []Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Delivery
	for i := len(d.hookLog) - 1; i >= 0; i-- {
		if d.hookLog[i].HookID == hookID {
			out = append(out, d.hookLog[i])
		}
	}
	return out
}
