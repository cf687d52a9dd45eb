package flow

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/hub"
)

// TestWidensAndNameable: content goes only toward as few readers or
// fewer; a thread names only what all its readers can read.
func TestWidensAndNameable(t *testing.T) {
	for _, c := range []struct {
		from, to Visibility
		widens   bool
	}{
		{Public, Public, false}, {Public, Private, false}, {Public, Unknown, false},
		{Private, Private, false}, {Private, Internal, true}, {Private, Public, true},
		{Internal, Internal, false}, {Internal, Private, false}, {Internal, Public, true},
		{Unknown, Private, true}, {Private, Unknown, true},
	} {
		if got := Widens(c.from, c.to); got != c.widens {
			t.Errorf("Widens(%s, %s) = %v", c.from, c.to, got)
		}
	}
	for _, c := range []struct {
		thread, named Visibility
		ok            bool
	}{
		{Public, Public, true}, {Private, Public, true}, {Public, Private, false}, {Private, Private, false},
		{Internal, Internal, true}, {Public, Internal, false}, {Private, Internal, false}, {Unknown, Private, false},
	} {
		if got := Nameable(c.thread, c.named); got != c.ok {
			t.Errorf("Nameable(%s, %s) = %v", c.thread, c.named, got)
		}
	}
}

// fakeAPI answers the three endpoints the Checker uses, counting calls.
type fakeAPI struct {
	vis    map[string]string // owner/name → visibility
	levels map[string]string // owner/name login → level
	author map[string]string // sha → login
	calls  map[string]int
}

func (f *fakeAPI) count(k string) {
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[k]++
}

func (f *fakeAPI) GetRepository(_ context.Context, owner, repo string) (hub.Repository, error) {
	f.count("repo")
	return hub.Repository{Name: repo, Owner: owner, Visibility: f.vis[owner+"/"+repo]}, nil
}

func (f *fakeAPI) Permission(_ context.Context, owner, repo, user string) (hub.Permission, error) {
	f.count("permission")
	level, ok := f.levels[owner+"/"+repo+" "+user]
	if !ok {
		return hub.Permission{}, &hub.Error{Status: http.StatusNotFound, Err: errors.New("not found")}
	}
	return hub.Permission{Level: level}, nil
}

func (f *fakeAPI) CommitAuthor(_ context.Context, _, _, sha string) (string, error) {
	f.count("commit")
	return f.author[sha], nil
}

// TestCheckerAppliesTheRule: each move of the rule, and the calls it
// costs (only what the answer needs, cached).
func TestCheckerAppliesTheRule(t *testing.T) {
	api := &fakeAPI{vis: map[string]string{"acme/vault": "private", "acme/site": "public", "acme/ops": "private", "acme/catalog": "public"},
		levels: map[string]string{"acme/vault alice": "admin", "acme/site alice": "admin", "acme/ops alice": "write",
			"acme/site mallory": "write", "acme/ops mallory": "write"},
		author: map[string]string{"c1": "mallory", "c2": "alice"}}
	repo := func(full string) Repo {
		o, n, _ := strings.Cut(full, "/")
		return Repo{Owner: o, Name: n, API: api}
	}
	c := &Checker{Permissions: &PermissionCache{}}
	ctx := context.Background()
	check := func(req Request) string {
		t.Helper()
		err := c.Check(ctx, req)
		var r *Refusal
		if err != nil && !errors.As(err, &r) {
			t.Fatal(err)
		}
		if r == nil {
			return ""
		}
		return r.Reason
	}
	for _, c := range []struct {
		name string
		req  Request
		want string
	}{
		{"same repository", Request{Source: repo("acme/vault"), Target: repo("acme/vault")}, ""},
		{"commenter cannot read", Request{Source: repo("acme/vault"), Target: repo("acme/ops"), Requester: "mallory"}, "@mallory cannot read acme/vault"},
		{"configuration author cannot read", Request{Source: repo("acme/vault"), Target: repo("acme/ops"), Commit: "c1", CommitRepo: repo("acme/ops"),
			TargetVouched: true}, "@mallory cannot read acme/vault"},
		{"private into public", Request{Source: repo("acme/vault"), Target: repo("acme/site"), Requester: "alice"}, "acme/vault is private and acme/site is public"},
		{"private into public, allowed", Request{Source: repo("acme/vault"), Target: repo("acme/site"), Requester: "alice", AllowWider: true}, ""},
		{"allowed by the source's answer", Request{Source: repo("acme/vault"), Target: repo("acme/site"), Requester: "alice",
			Allow: func(context.Context) (bool, error) { return true, nil }}, ""},
		{"private into private", Request{Source: repo("acme/vault"), Target: repo("acme/ops"), Commit: "c2", CommitRepo: repo("acme/vault"), SourceVouched: true}, ""},
		{"cannot write the target", Request{Source: repo("acme/catalog"), Target: repo("acme/vault"), Requester: "mallory"}, "@mallory cannot write acme/vault"},
		{"nobody to tell", Request{Source: repo("acme/vault"), Target: repo("acme/ops")}, "porchbot cannot tell who asked"},
	} {
		if got := check(c.req); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A public source vouched for by the target's own commit costs no call.
	api.calls = nil
	if got := check(Request{Source: repo("acme/catalog"), Target: repo("acme/site"), Commit: "c1", CommitRepo: repo("acme/site"), TargetVouched: true}); got != "" || len(api.calls) != 0 {
		t.Errorf("public source: %q, %v calls", got, api.calls)
	}
	// Everything asked before is cached: visibility and permissions for a
	// minute, authors for good.
	if got := check(Request{Source: repo("acme/vault"), Target: repo("acme/ops"), Commit: "c1", CommitRepo: repo("acme/ops"), TargetVouched: true}); got == "" || len(api.calls) != 0 {
		t.Errorf("again: %q, %v calls", got, api.calls)
	}
}
