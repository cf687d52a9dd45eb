package forge

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
)

// reqCtx is a REST call on one repository once the preamble every such
// handler shares has run: the repository {owner}/{repo} resolved for the
// caller with the permission the route needs.
//
// A route states its preamble where it is registered, as adapters run
// outermost first, e.g.
//
//	f.repoHandler(PermRead, onPull(signedIn(withBody(f.createReview))))
//
// resolves the repository for a reader (404/403), then {number} to a pull
// request (404), then requires a signed-in caller (401), then decodes the
// JSON body (400/413), and calls createReview(w, r, rc, req).
type reqCtx struct {
	w    http.ResponseWriter
	r    *http.Request
	repo *Repo
	// caller is who calls: nil when anonymous.
	caller *principal
	// perm is the caller's permission on the repository.
	perm Permission
	// number is the issue's or pull request's {number} (onIssue, onPull).
	number int
}

// repoHandlerFunc serves a call on a repository, its preamble done.
type repoHandlerFunc func(w http.ResponseWriter, r *http.Request, rc *reqCtx)

// repoHandler serves a route under /repos/{owner}/{repo}: the repository
// is resolved for the caller with need, as repoFor does (404 when the
// caller may not see it, 403 when it may not act on it with need), and h
// called with the call's context.
func (f *Forge) repoHandler(need Permission, h repoHandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if rc, ok := f.repoFor(w, r, need); ok {
			h(w, r, rc)
		}
	}
}

// withBody is h served with the request's JSON body decoded into a T, as
// decodeBody reads it (400 on a bad body, 413 on one too large).
func withBody[T any](h func(w http.ResponseWriter, r *http.Request, rc *reqCtx, body T)) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		if body, ok := decode[T](rc); ok {
			h(w, r, rc, body)
		}
	}
}

// decode reads the request's JSON body into a T, as decodeBody does;
// false when it answered.
func decode[T any](rc *reqCtx) (T, bool) {
	var body T
	ok := decodeBody(rc.w, rc.r, &body)
	return body, ok
}

// onPull is h served once {number} names a pull request of the
// repository (rc.number); 404 otherwise, also for an issue's number.
func onPull(h repoHandlerFunc) repoHandlerFunc {
	return numbered(func(repo *Repo, n int) bool { _, ok := repo.Pulls[n]; return ok }, h)
}

// onIssue is h served once {number} names an issue or pull request of the
// repository (rc.number); 404 otherwise.
func onIssue(h repoHandlerFunc) repoHandlerFunc {
	return numbered(func(repo *Repo, n int) bool { _, ok := repo.Issues[n]; return ok }, h)
}

// numbered resolves {number} to one that exists (asked under repo.mu).
func numbered(exists func(repo *Repo, n int) bool, h repoHandlerFunc) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		n, ok := rc.intVar("number")
		if !ok {
			return
		}
		rc.repo.mu.Lock()
		found := exists(rc.repo, int(n))
		rc.repo.mu.Unlock()
		if !found {
			notFound(w)
			return
		}
		rc.number = int(n)
		h(w, r, rc)
	}
}

// signedIn is h served to a caller acting as an account (rc.actor() is
// not nil); 401 "Requires authentication" otherwise.
func signedIn(h repoHandlerFunc) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		if _, ok := rc.requireActor(); !ok {
			return
		}
		h(w, r, rc)
	}
}

// actor is the account acting (the bot user for an installation), or nil
// when anonymous.
func (rc *reqCtx) actor() *Account { return actor(rc.caller) }

// requireActor is the account acting; 401 when anonymous.
func (rc *reqCtx) requireActor() (*Account, bool) { return requireActor(rc.w, rc.caller) }

// intVar reads the numeric path variable name; false (and a 404) if
// malformed.
func (rc *reqCtx) intVar(name string) (int64, bool) { return intVar(rc.w, rc.r, name) }

// repoFor resolves {owner}/{repo} for the caller. A repository the caller
// may not see is 404 (as GitHub hides it); one it sees but may not act on
// with `need` is 403.
func (f *Forge) repoFor(w http.ResponseWriter, r *http.Request, need Permission) (*reqCtx, bool) {
	v := mux.Vars(r)
	repo, ok := f.Repo(v["owner"] + "/" + v["repo"])
	p := caller(r)
	if !ok {
		notFound(w)
		return nil, false
	}
	perm := f.permission(p, repo)
	if perm < PermRead {
		notFound(w)
		return nil, false
	}
	if perm < need {
		msg := "Must have " + need.String() + " access to repository."
		if p != nil && p.kind == principalInstallation {
			msg = "Resource not accessible by integration"
		}
		writeError(w, http.StatusForbidden, msg)
		return nil, false
	}
	return &reqCtx{w: w, r: r, repo: repo, caller: p, perm: perm}, true
}

// actor is the account acting for a request (the bot user for an
// installation), or nil when anonymous.
func actor(p *principal) *Account {
	if p == nil {
		return nil
	}
	return p.account
}

// requireActor is the acting account of a write; 401 when anonymous.
func requireActor(w http.ResponseWriter, p *principal) (*Account, bool) {
	if p == nil || p.account == nil {
		writeError(w, http.StatusUnauthorized, "Requires authentication")
		return nil, false
	}
	return p.account, true
}

// intVar reads a numeric path variable; false (and a 404) if malformed.
func intVar(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(mux.Vars(r)[name], 10, 64)
	if err != nil || n <= 0 {
		notFound(w)
		return 0, false
	}
	return n, true
}
