package forge

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
)

// reqCtx is a REST call on one repository once the preamble every such
// handler shares has run: the repository {owner}/{repo} resolved for the
// caller with the permission the route needs.
type reqCtx struct {
	w    http.ResponseWriter
	r    *http.Request
	repo *Repo
	// caller is who calls: nil when anonymous.
	caller *principal
}

// repoHandlerFunc serves a call on a repository, its preamble done.
type repoHandlerFunc func(w http.ResponseWriter, r *http.Request, rc *reqCtx)

// repoHandler serves a route under /repos/{owner}/{repo}: the repository
// is resolved for the caller with need, as repoFor does (404 when the
// caller may not see it, 403 when it may not act on it with need), and h
// called with the call's context.
func (f *Forge) repoHandler(need Permission, h repoHandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		repo, p, ok := f.repoFor(w, r, need)
		if !ok {
			return
		}
		h(w, r, &reqCtx{w: w, r: r, repo: repo, caller: p})
	}
}

// withBody is h served with the request's JSON body decoded into a T, as
// decodeBody reads it (400 on a bad body, 413 on one too large).
func withBody[T any](h func(w http.ResponseWriter, r *http.Request, rc *reqCtx, body T)) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		var body T
		if !decodeBody(w, r, &body) {
			return
		}
		h(w, r, rc, body)
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
func (f *Forge) repoFor(w http.ResponseWriter, r *http.Request, need Permission) (*Repo, *principal, bool) {
	v := mux.Vars(r)
	repo, ok := f.Repo(v["owner"] + "/" + v["repo"])
	p := caller(r)
	if !ok {
		notFound(w)
		return nil, nil, false
	}
	perm := f.permission(p, repo)
	if perm < PermRead {
		notFound(w)
		return nil, nil, false
	}
	if perm < need {
		msg := "Must have " + need.String() + " access to repository."
		if p != nil && p.kind == principalInstallation {
			msg = "Resource not accessible by integration"
		}
		writeError(w, http.StatusForbidden, msg)
		return nil, nil, false
	}
	return repo, p, true
}

// actor is the account acting for a request (the bot user for an
// installation), or nil when anonymous.
func actor(p *principal) *Account {
	if p == nil {
		return nil
	}
	return p.account
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
