package commands_test

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/gitstore"
)

// harness is a local forge with the standard cast (forgetest), the bot's
// real clients and git store, a core.Opener, and a Runner whose
// Lifecycle is fake for proposals but real for drafts (DraftOps).
type harness struct {
	env     *forgetest.Env
	clients *ghclient.Clients
	store   *gitstore.Store
	opener  *core.Opener
	fake    *fakeLifecycle
	runner  *commands.Runner
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	rig := lifecycletest.New(t)
	h := &harness{env: rig.Env, clients: rig.Clients, store: rig.Store, opener: rig.Opener, fake: &fakeLifecycle{}}
	clients := rig.Clients
	h.runner = &commands.Runner{Clients: rig.Opener.Clients, Sessions: h.opener, Lifecycle: h.fake, Web: clients.URLs().Web,
		InstallationFor: func(ctx context.Context, owner, repo string) (int64, error) {
			return clients.InstallationIDForRepo(ctx, owner+"/"+repo)
		}, Log: rig.Log}
	return h
}

// repo is acme/<name> as the App's installation sees it.
func (h *harness) repo(name string) core.Repo {
	return core.Repo{Owner: "acme", Name: name, InstallationID: h.env.Installation.ID, DefaultBranch: "main"}
}

// seed commits files (the whole tree) on main of acme/<name> as alice.
func (h *harness) seed(t *testing.T, name string, files map[string][]byte) string {
	t.Helper()
	alice, _ := h.env.Forge.Account("alice")
	sha, err := h.env.Forge.CommitFiles("acme/"+name, "main", files, "seed", alice)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// ref creates refs/<kind>/<name> at sha in acme/<repo> as alice (REST); a
// revision tag refs/tags/<pkg>/v<N> as porchbot publishes it (signed).
func (h *harness) ref(t *testing.T, repo, ref, sha string) {
	t.Helper()
	gh := h.user(forgetest.AliceToken)
	var err error
	if tag, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		err = lifecycletest.RevisionTag(context.Background(), gh, "acme", repo, tag, sha)
	} else {
		_, _, err = gh.Git.CreateRef(context.Background(), "acme", repo,
			&github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(sha)}})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// createRepo creates acme/<name> with collaborators and a first commit.
func (h *harness) createRepo(t *testing.T, name string, collaborators map[string]forge.Permission) {
	t.Helper()
	if _, err := h.env.Forge.CreateRepo("acme", name, forge.RepoOptions{Private: true, Collaborators: collaborators}); err != nil {
		t.Fatal(err)
	}
	h.seed(t, name, map[string][]byte{"README.md": []byte(name + "\n")})
}

func (h *harness) user(token string) *github.Client { return h.env.Client(token) }

// issue opens an issue in acme/<repo> as alice.
func (h *harness) issue(t *testing.T, repo string) int {
	t.Helper()
	is, _, err := h.user(forgetest.AliceToken).Issues.Create(context.Background(), "acme", repo, &github.IssueRequest{Title: github.String("commands")})
	if err != nil {
		t.Fatal(err)
	}
	return is.GetNumber()
}

// comment posts a real comment (so the reaction has something to react
// to) and returns the event the webhook handler would build from it.
func (h *harness) comment(t *testing.T, token, repo string, number int, author, body string) commands.CommentEvent {
	t.Helper()
	c, _, err := h.user(token).Issues.CreateComment(context.Background(), "acme", repo, number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		t.Fatal(err)
	}
	return commands.CommentEvent{Repo: h.repo(repo), Number: number, CommentID: c.GetID(), Author: author, AuthorType: "User", Body: body,
		CreatedAt: c.GetCreatedAt().Time}
}

// run handles ev and returns the REST calls it made (app-level calls —
// installation tokens and lookups, made once per installation or
// repository and cached — left out) and the bot's reply ("" for none).
func (h *harness) run(t *testing.T, ev commands.CommentEvent) (calls map[string]int64, reply string) {
	t.Helper()
	nBefore := len(h.comments(t, ev.Repo.Name, ev.Number))
	before := h.settledStats()
	if err := h.runner.Handle(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	delta := forge.Counted(forge.StatsDelta(before, h.settledStats()))
	calls = map[string]int64{}
	for k, v := range delta {
		if strings.HasPrefix(k, "GIT ") || strings.Contains(k, "/app/") || strings.HasSuffix(k, "/installation") || strings.Contains(k, "/_forge/") {
			continue
		}
		calls[k] = v
	}
	all := h.comments(t, ev.Repo.Name, ev.Number)
	switch len(all) - nBefore {
	case 0:
	case 1:
		reply = all[len(all)-1].GetBody()
		if u := all[len(all)-1].GetUser(); u.GetType() != "Bot" {
			t.Errorf("the reply is by %s (%s), not the App", u.GetLogin(), u.GetType())
		}
	default:
		t.Fatalf("%d replies to one comment", len(all)-nBefore)
	}
	return calls, reply
}

// settledStats is the forge's call counts once they stop moving: the
// forge counts a call after answering it, so a client can see the answer
// a moment before the count.
func (h *harness) settledStats() map[string]int64 {
	prev := h.env.Forge.Stats().Snapshot()
	for i := 0; i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
		cur := h.env.Forge.Stats().Snapshot()
		if maps.Equal(prev, cur) {
			return cur
		}
		prev = cur
	}
	return prev
}

func (h *harness) comments(t *testing.T, repo string, number int) []*github.IssueComment {
	t.Helper()
	cs, _, err := h.user(forgetest.AliceToken).Issues.ListComments(context.Background(), "acme", repo, number,
		&github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func total(calls map[string]int64) int64 {
	var n int64
	for _, v := range calls {
		n += v
	}
	return n
}
