package fleet

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/ttlcache"
)

// topicsTTL is how long a rollout trusts a listing of repository topics.
const topicsTTL = 10 * time.Minute

// Topics is the controller's Topics over list, the topics of the
// repositories of a session's installation (by lower-case owner/name):
// topics change seldom, so one listing serves an installation's rollouts
// for topicsTTL, unless it lacks a repository asked for (one created
// since). A listing that failed is used once and not kept.
func Topics(list func(ctx context.Context, s *core.Session) (map[string][]string, error)) func(ctx context.Context, s *core.Session, repos []string) map[string][]string {
	var cache ttlcache.Cache[map[string][]string]
	return func(ctx context.Context, s *core.Session, repos []string) map[string][]string {
		key := strconv.FormatInt(s.Repo.InstallationID, 10)
		if m, ok := cache.Get(key, time.Now()); ok && listsAll(m, repos) {
			return m
		}
		listed, err := list(ctx, s)
		if err != nil {
			s.Log.WithError(err).Warn("rollout: the installation's repositories (their topics) not listed")
			return listed
		}
		cache.Put(key, listed, time.Now().Add(topicsTTL))
		return listed
	}
}

// listsAll says whether a listing holds every one of repos.
func listsAll(listed map[string][]string, repos []string) bool {
	for _, r := range repos {
		if _, ok := listed[strings.ToLower(r)]; !ok {
			return false
		}
	}
	return true
}
