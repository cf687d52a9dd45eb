package demo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/metrics"
)

// Counts is a snapshot of every counter that says who called the forge:
// the forge's own count per endpoint, the users' door, porchbot's own
// count of its GitHub API calls and its git caches' transport operations.
type Counts struct {
	Forge map[string]int64 // forge.Stats: "GET /repos/{owner}/{repo}", "GIT upload-pack", ...
	Users map[string]int64 // the users' door: "REST", "GIT info-refs", ...
	Bot   map[string]int64 // porchbot's GitHub client: "GET /repos/{owner}/{repo}" (every attempt)
	Git   gitstore.Stats   // porchbot's git fetches and pushes
}

// Counts snapshots the counters. Take it when the world is settled, or
// the bot's share of a step may straddle two snapshots.
func (w *World) Counts() Counts {
	return Counts{Forge: w.Forge.Stats().Snapshot(), Users: w.door.snapshot(),
		Bot: BotCalls(w.Svc.Metrics), Git: w.Svc.Git.Stats()}
}

// BotCalls reads porchbot's porchbot_github_api_calls_total by "METHOD
// endpoint", summed over status codes but 304 (GitHub does not charge a
// revalidated answer); git smart HTTP paths left out.
func BotCalls(m *metrics.Metrics) map[string]int64 {
	out := map[string]int64{}
	fams, err := m.Registry.Gather()
	if err != nil {
		return out
	}
	for _, fam := range fams {
		if fam.GetName() != metrics.Namespace+"_github_api_calls_total" {
			continue
		}
		for _, mt := range fam.GetMetric() {
			var endpoint, method, status string
			for _, l := range mt.GetLabel() {
				switch l.GetName() {
				case "endpoint":
					endpoint = l.GetValue()
				case "method":
					method = l.GetValue()
				case "status":
					status = l.GetValue()
				}
			}
			if strings.Contains(endpoint, ".git/") || status == "304" { // a 304 is not charged
				continue
			}
			out[method+" "+endpoint] += int64(mt.GetCounter().GetValue())
		}
	}
	return out
}

// Usage is what happened between two Counts.
type Usage struct {
	// REST is every REST call the forge answered that GitHub would charge
	// (forge.SumCounted: answers 304 are free); UserREST those that came
	// through the users' door; BotREST the rest, porchbot's.
	REST, UserREST, BotREST int64
	// BotOwnREST is porchbot's own count of its calls; it equals BotREST
	// when every call is accounted for.
	BotOwnREST int64
	// BotCalls are porchbot's calls by endpoint, by its own count.
	BotCalls map[string]int64
	// GitRequests are the git smart HTTP requests the forge answered
	// (info-refs, upload-pack, receive-pack), UserGit the users', BotGit
	// porchbot's.
	GitRequests, UserGit, BotGit int64
	// Fetches and Pushes are porchbot's git transport operations.
	Fetches, Pushes int64
	// ObjectReads and RefReads are what porchbot read from its git caches:
	// objects by id, references by name (gitstore.Stats).
	ObjectReads, RefReads int64
	// SessionCalls are BotCalls that open a session with the installation
	// (finding the installation of a repository, minting its token): paid
	// once per process and installation, then cached.
	SessionCalls int64
}

// sessionEndpoints are the calls that open an installation session.
var sessionEndpoints = []string{"/installation", "/access_tokens"}

// IsSessionCall reports a "METHOD endpoint" key that opens a session.
func IsSessionCall(key string) bool {
	for _, s := range sessionEndpoints {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// Since is what happened from before to c.
func (c Counts) Since(before Counts) Usage {
	fd := forge.StatsDelta(before.Forge, c.Forge)
	ud := forge.StatsDelta(before.Users, c.Users)
	u := Usage{REST: forge.SumCounted(fd), UserREST: ud["REST"], BotCalls: forge.StatsDelta(before.Bot, c.Bot),
		Fetches: c.Git.Fetches - before.Git.Fetches, Pushes: c.Git.Pushes - before.Git.Pushes,
		ObjectReads: c.Git.ObjectReads - before.Git.ObjectReads, RefReads: c.Git.RefReads - before.Git.RefReads}
	u.BotREST = u.REST - u.UserREST
	for k, v := range u.BotCalls {
		u.BotOwnREST += v
		if IsSessionCall(k) {
			u.SessionCalls += v
		}
	}
	for k, v := range fd {
		if strings.HasPrefix(k, "GIT ") {
			u.GitRequests += v
		}
	}
	for k, v := range ud {
		if strings.HasPrefix(k, "GIT ") {
			u.UserGit += v
		}
	}
	u.BotGit = u.GitRequests - u.UserGit
	return u
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	sum := Usage{REST: u.REST + o.REST, UserREST: u.UserREST + o.UserREST, BotREST: u.BotREST + o.BotREST,
		BotOwnREST: u.BotOwnREST + o.BotOwnREST, GitRequests: u.GitRequests + o.GitRequests,
		UserGit: u.UserGit + o.UserGit, BotGit: u.BotGit + o.BotGit, Fetches: u.Fetches + o.Fetches,
		Pushes: u.Pushes + o.Pushes, ObjectReads: u.ObjectReads + o.ObjectReads, RefReads: u.RefReads + o.RefReads,
		SessionCalls: u.SessionCalls + o.SessionCalls, BotCalls: map[string]int64{}}
	for _, m := range []map[string]int64{u.BotCalls, o.BotCalls} {
		for k, v := range m {
			sum.BotCalls[k] += v
		}
	}
	return sum
}

// Consistent reports that the forge's count of porchbot's calls (all
// calls minus the users') equals porchbot's own.
func (u Usage) Consistent() bool { return u.BotREST == u.BotOwnREST }

// CallList is porchbot's calls as "2× POST /repos/{owner}/{repo}/check-runs, ...",
// sorted by endpoint.
func (u Usage) CallList() string {
	keys := make([]string, 0, len(u.BotCalls))
	for k := range u.BotCalls {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, mi, _ := strings.Cut(keys[i], " ")
		pj, mj, _ := strings.Cut(keys[j], " ")
		if mi != mj {
			return mi < mj
		}
		return pi < pj
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d× %s", u.BotCalls[k], k)
	}
	return strings.Join(parts, ", ")
}
