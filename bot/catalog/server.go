// Package catalog serves the read-only web catalog (docs/catalog.md) at /
// of `porchbot serve`: the thin HTTP layer over internal/catalog, the
// GitHub App's user authorization (sign-in), the per-viewer access rule,
// and the loader that builds each repository's view from porchbot's cache.
package catalog

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/gorilla/mux"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/catalog"
	"github.com/porchbot/porchbot/internal/gitstore"
)

// Paths of the catalog besides its pages.
const (
	LoginPath    = "/login"
	CallbackPath = "/login/callback"
	LogoutPath   = "/logout"
	CSSPath      = "/catalog.css"
)

// maxDiffs bounds the diffs kept (a diff between two commits never changes).
const maxDiffs = 256

// Repos lists the repositories the App is installed on (InstalledRepos).
type Repos interface {
	List(ctx context.Context) ([]catalog.RepoRef, error)
}

// GitCaches gives a repository's git cache (internal/gitstore.Store).
type GitCaches interface {
	Repo(remoteURL string) (*gitstore.Cache, error)
}

// Options configure a Server.
type Options struct {
	Repos Repos
	Views *catalog.Cache
	Git   GitCaches
	// GitURL is the clone URL of owner/name (its cache's key).
	GitURL func(owner, name string) string
	OAuth  *OAuth
	Users  UserClients
	// Secure marks the cookies Secure (the catalog is served over HTTPS).
	Secure bool
	Log    logrus.FieldLogger
	Now    func() time.Time
}

// Server is the catalog's HTTP handler.
type Server struct {
	opts     Options
	sessions *sessions

	diffMu sync.Mutex
	diffs  map[string]*catalog.Diff
}

// New returns the catalog server.
func New(opts Options) (*Server, error) {
	if opts.Repos == nil || opts.Views == nil || opts.OAuth == nil || opts.Users == nil || opts.Git == nil || opts.GitURL == nil {
		return nil, errors.New("catalog: Repos, Views, Git, GitURL, OAuth and Users are required")
	}
	ss, err := newSessions()
	if err != nil {
		return nil, err
	}
	return &Server{opts: opts, sessions: ss, diffs: map[string]*catalog.Diff{}}, nil
}

func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

func (s *Server) log() logrus.FieldLogger {
	if s.opts.Log != nil {
		return s.opts.Log
	}
	return logrus.StandardLogger()
}

// Handler serves the catalog.
func (s *Server) Handler() http.Handler {
	r := mux.NewRouter()
	r.UseEncodedPath()
	get := []string{http.MethodGet, http.MethodHead}
	r.HandleFunc(CSSPath, s.serveCSS).Methods(get...)
	r.HandleFunc(LoginPath, s.serveLogin).Methods(get...)
	r.HandleFunc(CallbackPath, s.serveCallback).Methods(get...)
	r.HandleFunc(LogoutPath, s.serveLogout).Methods(http.MethodPost)
	r.HandleFunc("/", s.page(s.serveIndex)).Methods(get...)
	r.HandleFunc("/repos/{owner}/{name}", s.page(s.serveRepo)).Methods(get...)
	r.HandleFunc("/repos/{owner}/{name}/packages/{pkg:.+}", s.page(s.servePackage)).Methods(get...)
	r.HandleFunc("/repos/{owner}/{name}/diff/{pkg:.+}", s.page(s.serveDiff)).Methods(get...)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.message(w, http.StatusNotFound, catalog.Page{Title: "Not found", Data: "There is no such page."})
	})
	return r
}

func (s *Server) serveCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(catalog.CSS)
}

// pageRequest is one page request of a signed-in viewer.
type pageRequest struct {
	ss        *session
	installed []catalog.RepoRef
}

// page requires a session (else it starts the sign-in) and the list of
// installed repositories.
func (s *Server) page(h func(http.ResponseWriter, *http.Request, *pageRequest)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ss := s.sessions.of(r, s.now())
		if ss == nil {
			http.Redirect(w, r, LoginPath+"?return="+urlQueryEscape(r.URL.RequestURI()), http.StatusFound)
			return
		}
		installed, err := s.opts.Repos.List(r.Context())
		if err != nil {
			s.log().WithError(err).Error("catalog: listing the installed repositories failed")
			s.message(w, http.StatusBadGateway, s.frame(ss, "GitHub did not answer", "The catalog could not list the repositories; try again."))
			return
		}
		h(w, r, &pageRequest{ss: ss, installed: installed})
	}
}

func (s *Server) frame(ss *session, title string, data any, crumbs ...catalog.Crumb) catalog.Page {
	p := catalog.Page{Title: title, Data: data, Crumbs: crumbs}
	if ss != nil {
		p.Login, p.CSRF = ss.login, ss.csrf
	}
	return p
}

func (s *Server) render(w http.ResponseWriter, status int, page string, p catalog.Page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	if err := catalog.Render(w, page, p); err != nil {
		s.log().WithError(err).Error("catalog: rendering a page failed")
	}
}

func (s *Server) message(w http.ResponseWriter, status int, p catalog.Page) {
	s.render(w, status, catalog.PageMessage, p)
}

// notFound is the answer for what does not exist and for what the viewer
// cannot read alike: nothing tells them apart.
func (s *Server) notFound(w http.ResponseWriter, ss *session) {
	s.message(w, http.StatusNotFound, s.frame(ss, "Not found", "There is no such page, or you cannot read it on GitHub."))
}

func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request, pr *pageRequest) {
	v := s.viewer(r.Context(), pr.ss, pr.installed)
	var rows []catalog.RepoRow
	loading := 0
	for _, ref := range v.Visible(pr.installed) {
		row := catalog.RepoRow{Ref: ref, Repo: s.opts.Views.Peek(ref)}
		if row.Repo == nil {
			// Not loaded yet: loaded in the background, a few per view,
			// and the page comes back for them by itself.
			if loading < prefetchPerView {
				s.opts.Views.Prefetch(ref)
			}
			loading++
		}
		rows = append(rows, row)
	}
	p := s.frame(pr.ss, "Repositories", rows)
	if loading > 0 {
		p.Refresh = indexRefreshSeconds
	}
	s.render(w, http.StatusOK, catalog.PageIndex, p)
}

// The repositories page loads the views it lacks: at most prefetchPerView
// at once per visit, and it reloads itself after indexRefreshSeconds while
// any is missing.
const (
	prefetchPerView     = 8
	indexRefreshSeconds = 3
)

// repo is the view of the request's repository as the viewer may see it;
// nil (and the 404 written) when it is not installed or not readable.
func (s *Server) repo(w http.ResponseWriter, r *http.Request, pr *pageRequest) *catalog.Repository {
	vars := mux.Vars(r)
	owner, name := pathVar(vars["owner"]), pathVar(vars["name"])
	var ref catalog.RepoRef
	found := false
	for _, c := range pr.installed {
		if strings.EqualFold(c.Owner, owner) && strings.EqualFold(c.Name, name) {
			ref, found = c, true
		}
	}
	if !found {
		s.notFound(w, pr.ss)
		return nil
	}
	v := s.viewer(r.Context(), pr.ss, pr.installed)
	if !v.CanRead(ref.FullName()) {
		s.notFound(w, pr.ss)
		return nil
	}
	view, err := s.opts.Views.Get(r.Context(), ref)
	if err != nil {
		s.log().WithError(err).WithField("repository", ref.FullName()).Error("catalog: loading the repository failed")
		s.message(w, http.StatusBadGateway, s.frame(pr.ss, "Not loaded", "The catalog could not read this repository yet; try again shortly."))
		return nil
	}
	return v.Filter(view)
}

func (s *Server) serveRepo(w http.ResponseWriter, r *http.Request, pr *pageRequest) {
	view := s.repo(w, r, pr)
	if view == nil {
		return
	}
	s.render(w, http.StatusOK, catalog.PageRepo, s.frame(pr.ss, view.Ref.FullName(), view, repoCrumb(view)))
}

func repoCrumb(view *catalog.Repository) catalog.Crumb {
	return catalog.Crumb{Text: view.Ref.FullName(), URL: catalog.RepoURL(view.Ref)}
}

func (s *Server) servePackage(w http.ResponseWriter, r *http.Request, pr *pageRequest) {
	view := s.repo(w, r, pr)
	if view == nil {
		return
	}
	p, ok := view.Package(pathVar(mux.Vars(r)["pkg"]))
	if !ok {
		s.notFound(w, pr.ss)
		return
	}
	s.render(w, http.StatusOK, catalog.PagePackage, s.frame(pr.ss, p.Name, catalog.PackageView{Repo: view, Package: p},
		repoCrumb(view), catalog.Crumb{Text: p.Name, URL: catalog.PackageURL(view.Ref, p.Name)}))
}

func (s *Server) serveDiff(w http.ResponseWriter, r *http.Request, pr *pageRequest) {
	view := s.repo(w, r, pr)
	if view == nil {
		return
	}
	p, ok := view.Package(pathVar(mux.Vars(r)["pkg"]))
	from, errA := strconv.Atoi(r.URL.Query().Get("from"))
	to, errB := strconv.Atoi(r.URL.Query().Get("to"))
	if !ok || errA != nil || errB != nil {
		s.notFound(w, pr.ss)
		return
	}
	d, err := s.diff(r.Context(), view, p, from, to)
	if errors.Is(err, catalog.ErrNoRevision) {
		s.notFound(w, pr.ss)
		return
	}
	if err != nil {
		s.log().WithError(err).WithField("repository", view.Ref.FullName()).WithField("package", p.Name).Error("catalog: diff failed")
		s.message(w, http.StatusInternalServerError, s.frame(pr.ss, "Diff failed", "The diff could not be computed."))
		return
	}
	s.render(w, http.StatusOK, catalog.PageDiff, s.frame(pr.ss, p.Name+" v"+strconv.Itoa(from)+"…v"+strconv.Itoa(to),
		catalog.DiffView{Repo: view, Package: p, Diff: d}, repoCrumb(view),
		catalog.Crumb{Text: p.Name, URL: catalog.PackageURL(view.Ref, p.Name)}))
}

// diff computes (or recalls) a revision diff from the repository's git
// cache.
func (s *Server) diff(ctx context.Context, view *catalog.Repository, p *catalog.Package, from, to int) (*catalog.Diff, error) {
	a, okA := p.Revision(from)
	b, okB := p.Revision(to)
	if !okA || !okB {
		return nil, catalog.ErrNoRevision
	}
	key := strings.ToLower(view.Ref.FullName()) + "\x00" + view.PackageDir(p.Name) + "\x00" + a.Commit + "\x00" + b.Commit
	s.diffMu.Lock()
	d, ok := s.diffs[key]
	s.diffMu.Unlock()
	if ok {
		return d, nil
	}
	cache, err := s.opts.Git.Repo(s.opts.GitURL(view.Ref.Owner, view.Ref.Name))
	if err != nil {
		return nil, err
	}
	err = cache.With(ctx, func(repo *git.Repository) error {
		var err error
		d, err = catalog.RevisionDiff(ctx, repo, view, p, from, to)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.diffMu.Lock()
	for k := range s.diffs {
		if len(s.diffs) < maxDiffs {
			break
		}
		delete(s.diffs, k)
	}
	s.diffs[key] = d
	s.diffMu.Unlock()
	return d, nil
}
