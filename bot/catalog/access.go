package catalog

import (
	"context"
	"strings"
	"sync"

	"github.com/porchbot/porchbot/internal/catalog"
)

// accessChecks bounds the GitHub calls one page makes to learn what its
// viewer can read, and how many run at once.
const (
	maxAccessChecks    = 200
	accessChecksAtOnce = 8
)

// viewer is the catalog.Viewer of a session, after asking GitHub (as the
// viewer) about every repository in names it has no fresh verdict on. A
// repository is readable when it is installed (in installed) and public,
// or when GitHub says the viewer can read it; no answer means no.
func (s *Server) viewer(ctx context.Context, ss *session, installed []catalog.RepoRef, names []string) catalog.Viewer {
	byName := map[string]catalog.RepoRef{}
	for _, r := range installed {
		byName[strings.ToLower(r.FullName())] = r
	}
	now := s.now()
	var ask []catalog.RepoRef
	ss.mu.Lock()
	for _, n := range names {
		key := strings.ToLower(n)
		r, ok := byName[key]
		if !ok || !r.Private {
			continue
		}
		if v, ok := ss.read[key]; ok && now.Sub(v.at) < readTTL {
			continue
		}
		if len(ask) < maxAccessChecks {
			ask = append(ask, r)
		}
	}
	ss.mu.Unlock()
	if len(ask) > 0 {
		api := s.opts.Users.api(ctx, ss.token)
		var wg sync.WaitGroup
		sem := make(chan struct{}, accessChecksAtOnce)
		for _, r := range ask {
			wg.Add(1)
			sem <- struct{}{}
			go func(r catalog.RepoRef) {
				defer func() { <-sem; wg.Done() }()
				ok, err := api.CanRead(ctx, r.Owner, r.Name)
				if err != nil {
					s.log().WithError(err).WithField("repository", r.FullName()).WithField("viewer", ss.login).
						Warn("catalog: could not learn whether the viewer can read the repository")
					return // no verdict kept: asked again next time
				}
				ss.mu.Lock()
				ss.read[strings.ToLower(r.FullName())] = verdict{ok: ok, at: s.now()}
				ss.mu.Unlock()
			}(r)
		}
		wg.Wait()
	}
	return catalog.Viewer{Login: ss.login, CanRead: func(full string) bool {
		key := strings.ToLower(full)
		r, ok := byName[key]
		if !ok {
			return false
		}
		if !r.Private {
			return true
		}
		ss.mu.Lock()
		defer ss.mu.Unlock()
		v, ok := ss.read[key]
		return ok && v.ok
	}}
}
