package updates

// The visibilities of a fan-out's downstream repositories. From a public
// upstream the flow rule needs none (nothing is wider than public). From
// a private or internal one it needs each downstream repository's: asked
// one by one, that is a call per repository; the installation's
// repository list gives 100 a page. Before such a fan-out the list is
// paged only while that is cheaper than asking: while at least two
// downstream repositories of the upstream's installation are unknown (a
// page may give both for one call; one is asked as cheaply) and the pages
// spent stay below the number unknown at the start (the listing never
// costs more than asking each would have). What is still unknown is then
// asked one by one, as are the downstream repositories of other
// installations, which the list does not hold.

import (
	"context"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/flow"
)

// downstreamVisibilities are the visibilities, by lower-case owner/name,
// of the downstream repositories (and their installations) of a fan-out
// of up that porchbot knows or learned from the installation's list; nil
// when up is public. What is missing the flow rule asks for itself.
func (f *Fanout) downstreamVisibilities(ctx context.Context, up UpstreamRevision, installs map[string]int64) map[string]flow.Visibility {
	if up.Visibility == flow.Public || len(installs) == 0 {
		return nil
	}
	known := map[string]flow.Visibility{}
	var cache *flow.VisibilityCache
	if f.Flows != nil {
		cache = &f.Flows.Visibilities
	}
	inInstallation := map[string]bool{}
	for repo, inst := range installs {
		key := strings.ToLower(repo)
		if owner, name, ok := strings.Cut(repo, "/"); ok && cache != nil {
			if v := cache.Get(owner, name); v != flow.Unknown {
				known[key] = v
				continue
			}
		}
		inInstallation[key] = inst == up.Session.Repo.InstallationID
	}
	unknown := func(listed map[string]InstalledRepo) int {
		n := 0
		for key, in := range inInstallation {
			if _, ok := listed[key]; in && !ok {
				n++
			}
		}
		return n
	}
	atStart := unknown(nil)
	listed, err := ListInstallation(ctx, up.Session, f.Repos, f.Flows, func(listed map[string]InstalledRepo, pages int) bool {
		return unknown(listed) >= 2 && pages < atStart
	})
	if err != nil {
		up.Session.Log.WithError(err).Warn("installation's repositories not listed: each downstream repository's visibility is asked")
	}
	for key := range inInstallation {
		if ir, ok := listed[key]; ok && ir.Visibility != flow.Unknown {
			known[key] = ir.Visibility
		}
	}
	up.Session.Log.WithFields(logrus.Fields{"repositories": len(installs), "known": len(known)}).Debug("downstream visibilities")
	return known
}
