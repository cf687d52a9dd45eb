// Package hubtest holds Fake, a hub.API over plain values for unit tests.
package hubtest

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/porchbot/porchbot/internal/hub"
)

// Fake is hub.API over values: one repository's pull requests, reviews,
// comments, check runs, issues, releases and refs, and the repositories,
// permissions and teams around it. Set the fields, call, read the fields
// back. Owner and repo arguments are ignored but by GetRepository (and
// the URLs and branch repositories of what the fake creates). A number
// that is neither a pull request nor an issue is 404, as an absent ID,
// user, team or repository; every listing is one page (hub.Next{}).
// Errors are *hub.Error with GitHub's status. Safe for concurrent use;
// read the fields when no call is running.
type Fake struct {
	// Login is the account the fake acts as: the User of the pull
	// requests, comments and issues it creates ("porchbot[bot]" when
	// empty).
	Login string
	// AppSlug is the App of the check runs it creates ("porchbot" when
	// empty).
	AppSlug string
	// Now stamps what the fake creates (time.Now when nil).
	Now func() time.Time

	// Pulls are the pull requests, in the order listings give them.
	Pulls []hub.Pull
	// Reviews are each pull request's reviews, by number.
	Reviews map[int][]hub.Review
	// Comments are each issue's or pull request's comments, by number.
	Comments map[int][]hub.Comment
	// Reactions are the fake's reactions to comments: comment ID,
	// content, when made.
	Reactions map[int64]map[string]time.Time
	// RequestedReviewers and RequestedTeams are the reviews requested of
	// users and teams (slugs), by pull request number.
	RequestedReviewers, RequestedTeams map[int][]string
	// CheckRuns are the check runs of every commit.
	CheckRuns []hub.CheckRun
	// Statuses are the combined status of each ref (CombinedStatus).
	Statuses map[string][]hub.CommitStatus
	// Suites are the check suites: ID, commit (their runs are those of
	// the commit).
	Suites map[int64]string
	// Repos are the repositories, keyed "owner/name"; the installation's
	// repositories are all of them.
	Repos map[string]hub.Repository
	// Permissions are users' permissions, keyed by lower-case login.
	Permissions map[string]hub.Permission
	// Teams are the members' logins of each team, keyed "org/slug".
	Teams map[string][]string
	// Issues are the issues (pull requests are not among them).
	Issues []hub.Issue
	// Releases are the releases, in the order listings give them.
	Releases []hub.Release
	// Assets are the uploaded release assets: release ID, name, data.
	Assets map[int64]map[string][]byte
	// Refs are the refs (refs/heads/…, refs/tags/…) and their commits.
	Refs map[string]string
	// Activities are the repository's activities (any order).
	Activities []hub.Activity
	// Authors are the logins of commits' authors, by sha.
	Authors map[string]string

	// Calls are the names of the methods called, in order.
	Calls []string

	mu sync.Mutex
}

var _ hub.API = (*Fake)(nil)

// Count is how many times method was called.
func (f *Fake) Count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.Calls {
		if c == method {
			n++
		}
	}
	return n
}

// begin locks the fake and logs the call; the caller defers the unlock
// it returns.
func (f *Fake) begin(method string) func() {
	f.mu.Lock()
	f.Calls = append(f.Calls, method)
	return f.mu.Unlock
}

// answer is GitHub's answer of status (with error codes) as a *hub.Error.
func answer(status int, codes ...string) error {
	return &hub.Error{Status: status, Message: http.StatusText(status), Codes: codes}
}

func (f *Fake) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Fake) user() hub.User {
	if f.Login == "" {
		return hub.User{Login: "porchbot[bot]", Type: "Bot"}
	}
	return hub.User{Login: f.Login, Type: "User"}
}

// fakeSHA is a made-up commit id derived from parts.
func fakeSHA(parts ...any) string {
	sum := sha1.Sum([]byte(fmt.Sprint(parts...)))
	return hex.EncodeToString(sum[:])
}

// validState reports whether s is a state an edit may set.
func validState(s string) bool { return s == "open" || s == "closed" }

// wantState reports whether state passes a listing's filter (q: "" is
// "open", "all" any).
func wantState(q, state string) bool {
	return q == "all" || state == q || q == "" && state == "open"
}

// addNames appends to list the names not in it already
// (case-insensitive, as GitHub's labels and logins).
func addNames(list []string, names []string) []string {
	for _, n := range names {
		if !hub.HasLabel(list, n) {
			list = append(list, n)
		}
	}
	return list
}

// removeLabel removes name, reporting whether it was there.
func removeLabel(labels []string, name string) ([]string, bool) {
	i := slices.IndexFunc(labels, func(l string) bool { return strings.EqualFold(l, name) })
	if i < 0 {
		return labels, false
	}
	return slices.Delete(labels, i, i+1), true
}

// resolve is the commit ref names: a ref, a branch or tag name, or a sha.
func (f *Fake) resolve(ref string) string {
	for _, r := range []string{ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if sha, ok := f.Refs[r]; ok {
			return sha
		}
	}
	return ref
}

// nextID is one more than the largest of ids.
func nextID(ids ...int64) int64 {
	var m int64
	for _, id := range ids {
		m = max(m, id)
	}
	return m + 1
}

// ensure makes *m when nil.
func ensure[K comparable, V any](m *map[K]V) map[K]V {
	if *m == nil {
		*m = map[K]V{}
	}
	return *m
}

// GetRepository is Repos[owner/repo] (case-insensitive).
func (f *Fake) GetRepository(_ context.Context, owner, repo string) (hub.Repository, error) {
	defer f.begin("GetRepository")()
	key := owner + "/" + repo
	if r, ok := f.Repos[key]; ok {
		return cloneRepo(r), nil
	}
	for k, r := range f.Repos {
		if strings.EqualFold(k, key) {
			return cloneRepo(r), nil
		}
	}
	return hub.Repository{}, answer(http.StatusNotFound)
}

func cloneRepo(r hub.Repository) hub.Repository {
	r.Topics = slices.Clone(r.Topics)
	return r
}

// CombinedStatus is Statuses[ref].
func (f *Fake) CombinedStatus(_ context.Context, _, _, ref string) ([]hub.CommitStatus, error) {
	defer f.begin("CombinedStatus")()
	return append([]hub.CommitStatus(nil), f.Statuses[ref]...), nil
}

// CommitAuthor is Authors[sha] ("" when absent).
func (f *Fake) CommitAuthor(_ context.Context, _, _, sha string) (string, error) {
	defer f.begin("CommitAuthor")()
	return f.Authors[sha], nil
}

// Permission is Permissions[user] (Role Level when empty); 404 when
// absent.
func (f *Fake) Permission(_ context.Context, _, _, user string) (hub.Permission, error) {
	defer f.begin("Permission")()
	p, ok := f.Permissions[strings.ToLower(user)]
	if !ok {
		return hub.Permission{}, answer(http.StatusNotFound)
	}
	if p.Role == "" {
		p.Role = p.Level
	}
	return p, nil
}

// TeamMembership is an active member's membership of Teams[org/slug];
// 404 when user is not a member.
func (f *Fake) TeamMembership(_ context.Context, org, slug, user string) (hub.Membership, error) {
	defer f.begin("TeamMembership")()
	for _, m := range f.Teams[org+"/"+slug] {
		if strings.EqualFold(m, user) {
			return hub.Membership{State: "active", Role: "member"}, nil
		}
	}
	return hub.Membership{}, answer(http.StatusNotFound)
}

// ListInstallationRepos lists Repos, by name.
func (f *Fake) ListInstallationRepos(context.Context, hub.Page) ([]hub.Repository, int, hub.Next, error) {
	defer f.begin("ListInstallationRepos")()
	keys := make([]string, 0, len(f.Repos))
	for k := range f.Repos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]hub.Repository, 0, len(keys))
	for _, k := range keys {
		out = append(out, cloneRepo(f.Repos[k]))
	}
	return out, len(out), hub.Next{}, nil
}

// CreateRef sets Refs[ref]; 422 when ref exists or is no refs/x/y, or sha
// is empty.
func (f *Fake) CreateRef(_ context.Context, _, _, ref, sha string) error {
	defer f.begin("CreateRef")()
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 || sha == "" {
		return answer(http.StatusUnprocessableEntity)
	}
	if _, ok := f.Refs[ref]; ok {
		return answer(http.StatusUnprocessableEntity)
	}
	ensure(&f.Refs)[ref] = sha
	return nil
}

// ListActivities lists Activities of q.Ref (all when empty), newest
// first.
func (f *Fake) ListActivities(_ context.Context, _, _ string, q hub.ActivityQuery) ([]hub.Activity, hub.Next, error) {
	defer f.begin("ListActivities")()
	ref := q.Ref
	if ref != "" && !strings.HasPrefix(ref, "refs/") {
		ref = "refs/heads/" + ref
	}
	var out []hub.Activity
	for _, a := range f.Activities {
		if ref == "" || a.Ref == ref {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timestamp.After(out[j].Timestamp) })
	return out, hub.Next{}, nil
}

// CreateRelease appends a release; 422 (already_exists) when its tag has
// one, or no tag.
func (f *Fake) CreateRelease(_ context.Context, owner, repo string, r hub.Release) (hub.Release, error) {
	defer f.begin("CreateRelease")()
	if r.TagName == "" {
		return hub.Release{}, answer(http.StatusUnprocessableEntity, "missing_field")
	}
	ids := make([]int64, 0, len(f.Releases))
	for _, x := range f.Releases {
		if x.TagName == r.TagName {
			return hub.Release{}, answer(http.StatusUnprocessableEntity, "already_exists")
		}
		ids = append(ids, x.ID)
	}
	r.ID = nextID(ids...)
	if r.CreatedAt.IsZero() {
		r.CreatedAt = f.now()
	}
	r.HTMLURL = fmt.Sprintf("https://github.com/%s/%s/releases/tag/%s", owner, repo, r.TagName)
	f.Releases = append(f.Releases, r)
	return r, nil
}

// ListReleases lists Releases.
func (f *Fake) ListReleases(context.Context, string, string, hub.Page) ([]hub.Release, hub.Next, error) {
	defer f.begin("ListReleases")()
	return slices.Clone(f.Releases), hub.Next{}, nil
}

// UploadReleaseAsset keeps a copy of data in Assets; 404 when the release
// is absent, 422 (already_exists) when it has an asset name.
func (f *Fake) UploadReleaseAsset(_ context.Context, _, _ string, releaseID int64, name, _ string, data []byte) error {
	defer f.begin("UploadReleaseAsset")()
	if !slices.ContainsFunc(f.Releases, func(r hub.Release) bool { return r.ID == releaseID }) {
		return answer(http.StatusNotFound)
	}
	assets := ensure(&f.Assets)
	if _, ok := assets[releaseID][name]; ok {
		return answer(http.StatusUnprocessableEntity, "already_exists")
	}
	if assets[releaseID] == nil {
		assets[releaseID] = map[string][]byte{}
	}
	assets[releaseID][name] = slices.Clone(data)
	return nil
}
