package rollout

import (
	"strings"
	"sync"
	"time"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/rollout"
)

// A CI's statuses come on every commit of every repository: most are no
// deployment report of any rollout. Which contexts an upstream
// repository's rollouts want is remembered from its configuration each
// time porchbot reads it (a step, a report), so that a status no rollout
// wants is dropped without opening the upstream (a git fetch). A
// configuration that names a new context is seen within filterTTL; a
// report dropped meanwhile is read again by the resync's repair.

// filterTTL is how long an upstream's wanted contexts are trusted.
const filterTTL = 5 * time.Minute

// contextFilter remembers, by lower-case owner/name of an upstream
// repository, the report contexts its rollouts want.
type contextFilter struct{ m sync.Map }

type wanted struct {
	patterns []string // nil: no rollout of it wants a report
	until    time.Time
}

// learn remembers what the rollouts of cfg, repo's configuration, want.
func (f *contextFilter) learn(repo string, cfg *config.Config, now time.Time) {
	var w wanted
	for _, r := range cfg.Rollouts() {
		if r.Success != config.SuccessMerged {
			w.patterns = append(w.patterns, r.DeploymentContexts...)
		}
	}
	w.until = now.Add(filterTTL)
	f.m.Store(strings.ToLower(repo), w)
}

// skips says whether repo is known, from its configuration read less than
// filterTTL ago, to want no report of context.
func (f *contextFilter) skips(repo, context string, now time.Time) bool {
	v, ok := f.m.Load(strings.ToLower(repo))
	if !ok {
		return false
	}
	w := v.(wanted)
	return now.Before(w.until) && !rollout.MatchContext(w.patterns, context)
}
