package forge

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
)

// apiPrefix is where the REST API lives, as on GitHub Enterprise Server.
const apiPrefix = "/api/v3"

// Handler serves the REST API, git smart HTTP and the forge's control
// endpoints (/_forge/stats, /_forge/faults).
func (f *Forge) Handler() http.Handler {
	root := mux.NewRouter()
	root.HandleFunc("/_forge/stats", f.handleStats).Methods(http.MethodGet, http.MethodDelete)
	root.HandleFunc("/_forge/app", f.handleAppHold).Methods(http.MethodGet)
	root.HandleFunc("/_forge/faults", f.handleFaults).Methods(http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete)

	api := root.PathPrefix(apiPrefix).Subrouter()
	api.Use(f.countCalls, f.injectFaults, f.authMiddleware)
	f.routesAPI(api)
	api.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.stats.add(r.Method + " (unrouted)")
		notFound(w)
	})

	uploads := root.PathPrefix(uploadsPrefix).Subrouter()
	uploads.Use(f.countCalls, f.injectFaults, f.authMiddleware)
	f.routesUploads(uploads)

	f.routesGitHTTP(root)
	f.routesAssetDownloads(root)
	f.routesAppManifests(root)
	f.routesOAuth(root)
	f.routesWeb(root)
	return root
}

// routesAPI registers the REST API on api (a router under apiPrefix).
func (f *Forge) routesAPI(api *mux.Router) {
	// One registration per file, each named for the resources it serves.
	f.routesApp(api)
	f.routesAppHook(api)
	f.routesAppManifestConversions(api)
	f.routesRepos(api)
	f.routesForks(api)
	f.routesBranchProtection(api) // before the branch routes (api_branch_protection.go)
	f.routesGitData(api)
	f.routesContents(api)
	f.routesReviewComments(api)
	f.routesPulls(api)
	f.routesReviews(api)
	f.routesIssueEvents(api)
	f.routesActivity(api)
	f.routesIssues(api)
	f.routesComments(api)
	f.routesReactions(api)
	f.routesLabels(api)
	f.routesChecks(api)
	f.routesStatuses(api)
	f.routesDeployments(api)
	f.routesCommits(api)
	f.routesRepoExtras(api)
	f.routesRepoTopics(api)
	f.routesSearch(api)
	f.routesHooks(api)
	f.routesReleases(api)
	f.routesReleaseAssets(api)
	f.routesCollaborators(api)
	f.routesTeams(api)
	f.routesUserInstallations(api)
}

// countCalls counts each REST call under its route template.
func (f *Forge) countCalls(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Counted before the answer leaves, so a client that has its
		// answer always finds the call counted.
		key := r.Method + " " + routeTemplate(r)
		f.stats.add(key)
		rec := &statusRecorder{ResponseWriter: w, onStatus: func(code int) {
			if code == http.StatusNotModified {
				f.stats.add(key + notModifiedSuffix)
			}
		}}
		next.ServeHTTP(rec, r)
	})
}

func routeTemplate(r *http.Request) string {
	if cur := mux.CurrentRoute(r); cur != nil {
		if t, err := cur.GetPathTemplate(); err == nil {
			return strings.TrimPrefix(strings.TrimPrefix(t, apiPrefix), uploadsPrefix)
		}
	}
	return strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, apiPrefix), uploadsPrefix)
}

type statusRecorder struct {
	http.ResponseWriter
	status   int
	onStatus func(code int)
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		if s.onStatus != nil {
			s.onStatus(code)
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// injectFaults applies the configured latency, 5xx and rate limits.
func (f *Forge) injectFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := f.faults.decide(strings.TrimPrefix(r.URL.Path, apiPrefix), f.clockNow())
		if d.latency > 0 {
			t := time.NewTimer(d.latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if d.status != 0 {
			for k, v := range d.headers {
				w.Header().Set(k, v)
			}
			if d.docs != "" {
				writeRaw(w, d.status, apiError{Message: d.message, DocumentationURL: d.docs, Status: strconv.Itoa(d.status)})
				return
			}
			writeError(w, d.status, d.message)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authMiddleware authenticates the caller (401 on bad credentials, as
// GitHub) and sets the X-RateLimit-* headers of the caller's budget.
func (f *Forge) authMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := f.authenticate(r)
		if err != nil {
			writeError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		// GET /rate_limit does not count against the budget, nor does an
		// answer 304 to a conditional request, as on GitHub: the headers
		// are set when the status is known.
		count := r.URL.Path != apiPrefix+"/rate_limit"
		bw := &statusRecorder{ResponseWriter: w, onStatus: func(code int) {
			f.rate.setHeaders(w, p, f.clockNow(), count && code != http.StatusNotModified)
		}}
		next.ServeHTTP(bw, r.WithContext(withPrincipal(r.Context(), p)))
	})
}

// rateBudget tracks a per-caller hourly budget for the X-RateLimit-*
// headers: 5,000 for users, 60 for anonymous calls, and for an
// installation 5,000 plus 50 for each repository beyond 20, at most
// 12,500, as GitHub grants (installationRateLimit).
type rateBudget struct {
	mu     sync.Mutex
	used   map[string]int
	limits map[string]int // an installation's, fixed for the window
	reset  time.Time
	// repos counts an installation's repositories (Forge.reposOf).
	repos func(inst *Installation) int
}

// installationRateLimit is GitHub's hourly limit of an installation
// covering repos repositories.
func installationRateLimit(repos int) int {
	return min(5000+50*max(repos-20, 0), 12500)
}

// rateWindow is a caller's budget in the current hour.
type rateWindow struct {
	limit, used int
	reset       time.Time
}

// take reads the caller's budget, spending one call when count.
func (b *rateBudget) take(p *principal, now time.Time, count bool) rateWindow {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used == nil || !now.Before(b.reset) {
		b.used, b.limits = map[string]int{}, map[string]int{}
		b.reset = now.Add(time.Hour).Truncate(time.Second)
	}
	key, limit := "anonymous", 60
	if p != nil {
		key, limit = principalKeyOf(p), 5000
	}
	if p != nil && p.kind == principalInstallation && p.installation != nil && p.installation.Account != nil && b.repos != nil {
		l, ok := b.limits[key]
		if !ok {
			l = installationRateLimit(b.repos(p.installation))
			b.limits[key] = l
		}
		limit = l
	}
	if count {
		b.used[key]++
	}
	return rateWindow{limit: limit, used: b.used[key], reset: b.reset}
}

func (b *rateBudget) setHeaders(w http.ResponseWriter, p *principal, now time.Time, count bool) {
	win := b.take(p, now, count)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(win.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(win.limit-win.used, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(win.used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(win.reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// SpendRateBudget spends calls of installation id's hourly REST budget, as
// other work would have (negative: gives them back, as a reset does): a
// test sees what porchbot does when little is left.
func (f *Forge) SpendRateBudget(id int64, calls int) {
	f.rate.take(&principal{kind: principalInstallation, installation: &Installation{ID: id}}, f.clockNow(), false)
	f.rate.mu.Lock()
	f.rate.used["installation:"+strconv.FormatInt(id, 10)] += calls
	f.rate.mu.Unlock()
}

// ResetRateBudgets starts a new hour for every caller's budget, as
// GitHub's reset does.
func (f *Forge) ResetRateBudgets() {
	f.rate.mu.Lock()
	f.rate.used, f.rate.limits = nil, nil
	f.rate.mu.Unlock()
}

func principalKeyOf(p *principal) string {
	switch p.kind {
	case principalInstallation:
		return "installation:" + strconv.FormatInt(p.installation.ID, 10)
	case principalApp:
		return "app"
	}
	return "user:" + strconv.FormatInt(p.account.ID, 10)
}
