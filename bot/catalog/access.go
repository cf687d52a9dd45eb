package catalog

import (
	"context"
	"strings"

	"github.com/porchbot/porchbot/internal/catalog"
)

// viewer is the catalog.Viewer of a session. A repository is readable when
// the App is installed on it (it is in installed) and it is public, or the
// viewer has access to it on GitHub: GitHub's list of the repositories of
// the App's installations the viewer can read (GET /user/installations and
// /user/installations/{id}/repositories with the viewer's own token), read
// again after readTTL. No answer means nothing private is readable.
func (s *Server) viewer(ctx context.Context, ss *session, installed []catalog.RepoRef) catalog.Viewer {
	byName := make(map[string]catalog.RepoRef, len(installed))
	for _, r := range installed {
		byName[strings.ToLower(r.FullName())] = r
	}
	readable := s.readable(ctx, ss)
	return catalog.Viewer{Login: ss.login, CanRead: func(full string) bool {
		key := strings.ToLower(full)
		r, ok := byName[key]
		return ok && (!r.Private || readable[key])
	}}
}

// readable is the session's list of the repositories its viewer can read,
// read from GitHub when it is older than readTTL.
func (s *Server) readable(ctx context.Context, ss *session) map[string]bool {
	ss.mu.Lock()
	defer ss.mu.Unlock() // one listing at a time per session
	if ss.read != nil && s.now().Sub(ss.readAt) < readTTL {
		return ss.read
	}
	read, err := s.opts.Users.api(ctx, ss.token).Readable(ctx)
	if err != nil {
		s.log().WithError(err).WithField("viewer", ss.login).
			Warn("catalog: could not list the repositories the viewer can read; showing public ones only")
		if ss.read != nil {
			return ss.read // the last answer, until GitHub answers again
		}
		return map[string]bool{}
	}
	ss.read, ss.readAt = read, s.now()
	return read
}
