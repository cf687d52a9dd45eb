package forge_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// ghClone clones with go-git into memory, with a work tree.
func ghClone(ctx context.Context, env *forgetest.Env, fullName string, auth transport.AuthMethod) (*git.Repository, error) {
	return git.CloneContext(ctx, memory.NewStorage(), memfs.New(), &git.CloneOptions{URL: env.GitURL(fullName), Auth: auth})
}

// ghCommit writes files in a go-git work tree and commits them.
func ghCommit(t *testing.T, repo *git.Repository, msg string, files map[string]string) plumbing.Hash {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		fh, err := wt.Filesystem.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fh.Write([]byte(c)); err != nil {
			t.Fatal(err)
		}
		_ = fh.Close()
		if _, err := wt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "alice",
		Email: "alice@users.noreply.forge.local", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestGitHTTPGoGitCloneFetchPush(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	head := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n", "network/upf/Kptfile": "kind: Kptfile\n"})
	before := env.Forge.Stats().Snapshot()

	aliceAuth := &githttp.BasicAuth{Username: "alice", Password: forgetest.AliceToken}
	repo, err := ghClone(ctx, env, env.CatalogRepo, aliceAuth)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Head()
	if err != nil || ref.Hash().String() != head || ref.Name() != "refs/heads/main" {
		t.Fatalf("cloned head %v %v", ref, err)
	}

	// The App's installation token (x-access-token) pushes.
	instAuth := &githttp.BasicAuth{Username: "x-access-token", Password: env.InstallationToken(t)}
	next := ghCommit(t, repo, "Edit upf", map[string]string{"network/upf/Kptfile": "kind: Kptfile\nedited: true\n"})
	if err := repo.PushContext(ctx, &git.PushOptions{Auth: instAuth}); err != nil {
		t.Fatal(err)
	}
	if got := gtRefs(t, env, env.CatalogRepo)["refs/heads/main"]; got != next.String() {
		t.Fatalf("main after push %s, want %s", got, next)
	}
	// A new branch and a tag.
	if err := repo.PushContext(ctx, &git.PushOptions{Auth: aliceAuth, RefSpecs: []config.RefSpec{
		"refs/heads/main:refs/heads/drafts/w1", "refs/heads/main:refs/tags/v1"}}); err != nil {
		t.Fatal(err)
	}
	refs := gtRefs(t, env, env.CatalogRepo)
	if refs["refs/heads/drafts/w1"] != next.String() || refs["refs/tags/v1"] != next.String() {
		t.Fatalf("refs after push %v", refs)
	}

	// Another clone fetches what was pushed.
	other, err := git.CloneContext(ctx, memory.NewStorage(), nil, &git.CloneOptions{URL: env.GitURL(env.CatalogRepo),
		Auth: &githttp.BasicAuth{Username: "bob", Password: forgetest.BobToken}, ReferenceName: "refs/heads/drafts/w1", SingleBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	third := ghCommit(t, repo, "Third", map[string]string{"c.txt": "c\n"})
	if err := repo.PushContext(ctx, &git.PushOptions{Auth: aliceAuth, RefSpecs: []config.RefSpec{"refs/heads/main:refs/heads/drafts/w1"}}); err != nil {
		t.Fatal(err)
	}
	if err := other.FetchContext(ctx, &git.FetchOptions{Auth: &githttp.BasicAuth{Username: "bob", Password: forgetest.BobToken},
		RefSpecs: []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*"}}); err != nil {
		t.Fatal(err)
	}
	r, err := other.Reference("refs/remotes/origin/drafts/w1", true)
	if err != nil || r.Hash() != third {
		t.Fatalf("fetched %v %v", r, err)
	}
	if err := other.FetchContext(ctx, &git.FetchOptions{Auth: &githttp.BasicAuth{Username: "bob", Password: forgetest.BobToken},
		RefSpecs: []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*"}}); !errors.Is(err, git.NoErrAlreadyUpToDate) {
		t.Fatalf("second fetch: %v", err)
	}
	// Deleting a branch.
	if err := repo.PushContext(ctx, &git.PushOptions{Auth: aliceAuth, RefSpecs: []config.RefSpec{":refs/heads/drafts/w1"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := gtRefs(t, env, env.CatalogRepo)["refs/heads/drafts/w1"]; ok {
		t.Fatal("branch not deleted")
	}

	delta := forge.StatsDelta(before, env.Forge.Stats().Snapshot())
	if delta["GIT info-refs"] < 6 || delta["GIT upload-pack"] < 3 || delta["GIT receive-pack"] != 4 {
		t.Fatalf("git calls counted: %v", delta)
	}
	if forge.SumREST(delta) != 0 {
		t.Fatalf("git calls counted as REST: %v", delta)
	}
}

func TestGitHTTPAccessControl(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	head := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})

	// mallory: no access to the private repository.
	_, err := ghClone(ctx, env, env.CatalogRepo, &githttp.BasicAuth{Username: "mallory", Password: forgetest.MalloryToken})
	if !errors.Is(err, transport.ErrRepositoryNotFound) {
		t.Fatalf("mallory clones: %v", err)
	}
	// Anonymous and bad credentials are asked to authenticate.
	_, err = ghClone(ctx, env, env.CatalogRepo, nil)
	if !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("anonymous clone: %v", err)
	}
	_, err = ghClone(ctx, env, env.CatalogRepo, &githttp.BasicAuth{Username: "x", Password: "wrong"})
	if !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("bad token: %v", err)
	}
	resp, err := http.Get(env.GitURL(env.CatalogRepo) + "/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Basic realm="GitHub"` {
		t.Fatalf("anonymous info/refs: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// Nothing outside the repositories can be named.
	for _, path := range []string{"/acme/..%2F..%2Fetc.git/info/refs", "/acme/%2E%2E/info/refs", "/acme/catalog.git%2F..%2F..%2Fx/info/refs",
		"/ACME/CATALOG.git/../../info/refs"} {
		req, _ := http.NewRequest(http.MethodGet, env.Forge.BaseURL()+path+"?service=git-upload-pack", nil)
		req.SetBasicAuth("alice", forgetest.AliceToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("%s answered 200", path)
		}
	}
	// Absent repositories look like private ones.
	_, err = ghClone(ctx, env, "acme/nope", &githttp.BasicAuth{Username: "alice", Password: forgetest.AliceToken})
	if !errors.Is(err, transport.ErrRepositoryNotFound) {
		t.Fatalf("absent repository: %v", err)
	}

	// carol reads but may not push; nothing changes.
	carolAuth := &githttp.BasicAuth{Username: "carol", Password: forgetest.CarolToken}
	repo, err := ghClone(ctx, env, env.CatalogRepo, carolAuth)
	if err != nil {
		t.Fatalf("carol clones: %v", err)
	}
	ghCommit(t, repo, "carol's change", map[string]string{"x.txt": "x\n"})
	err = repo.PushContext(ctx, &git.PushOptions{Auth: carolAuth})
	if !errors.Is(err, transport.ErrAuthorizationFailed) {
		t.Fatalf("carol pushes: %v", err)
	}
	if refs := gtRefs(t, env, env.CatalogRepo); len(refs) != 1 || refs["refs/heads/main"] != head {
		t.Fatalf("refs after a refused push: %v", refs)
	}
	// The git CLI shows why.
	g := gtNewGit(t, "carol")
	g.run("clone", "--quiet", gtURL(env, env.CatalogRepo, "carol", forgetest.CarolToken), ".")
	g.commit("carol again", map[string]string{"y.txt": "y\n"})
	out, err := g.try("push", "origin", "main")
	if err == nil || !strings.Contains(out, "Permission to acme/catalog.git denied to carol") || !strings.Contains(out, "403") {
		t.Fatalf("carol's CLI push: %v\n%s", err, out)
	}
	if refs := gtRefs(t, env, env.CatalogRepo); refs["refs/heads/main"] != head {
		t.Fatalf("refs after a refused CLI push: %v", refs)
	}

	// A public repository: anyone clones, nobody anonymous pushes.
	if _, err := env.Forge.CreateRepo("acme", "public", forge.RepoOptions{}); err != nil {
		t.Fatal(err)
	}
	alice, _ := env.Forge.Account("alice")
	if _, err := env.Forge.CommitFiles("acme/public", "main", map[string][]byte{"a": []byte("a")}, "init", alice); err != nil {
		t.Fatal(err)
	}
	pub, err := ghClone(ctx, env, "acme/public", nil)
	if err != nil {
		t.Fatalf("anonymous clone of a public repository: %v", err)
	}
	ghCommit(t, pub, "anonymous", map[string]string{"b": "b"})
	if err := pub.PushContext(ctx, &git.PushOptions{}); !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("anonymous push: %v", err)
	}
	if err := pub.PushContext(ctx, &git.PushOptions{Auth: &githttp.BasicAuth{Username: "mallory", Password: forgetest.MalloryToken}}); !errors.Is(err, transport.ErrAuthorizationFailed) {
		t.Fatalf("mallory pushes to a public repository: %v", err)
	}

	// The installation writes its own account's repositories only.
	if _, err := env.Forge.CreateRepo("alice", "personal", forge.RepoOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Forge.CommitFiles("alice/personal", "main", map[string][]byte{"a": []byte("a")}, "init", alice); err != nil {
		t.Fatal(err)
	}
	inst := &githttp.BasicAuth{Username: "x-access-token", Password: env.InstallationToken(t)}
	personal, err := ghClone(ctx, env, "alice/personal", inst)
	if err != nil {
		t.Fatal(err)
	}
	ghCommit(t, personal, "bot", map[string]string{"b": "b"})
	if err := personal.PushContext(ctx, &git.PushOptions{Auth: inst}); !errors.Is(err, transport.ErrAuthorizationFailed) {
		t.Fatalf("installation pushes outside its account: %v", err)
	}
}

func TestGitHTTPCLIRoundTrip(t *testing.T) {
	env := forgetest.New(t)
	gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})
	url := gtURL(env, env.CatalogRepo, "alice", forgetest.AliceToken)

	g := gtNewGit(t, "alice")
	g.run("clone", "--quiet", url, ".")
	// A large, incompressible file: git sends the pack chunked.
	big := make([]byte, 3<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	head := g.commit("Big", map[string]string{"big.bin": hex.EncodeToString(big)})
	g.run("push", "--quiet", "origin", "main")
	g.run("checkout", "--quiet", "-b", "drafts/network/upf/w1")
	draft := g.commit("Draft", map[string]string{"network/upf/Kptfile": "kind: Kptfile\n"})
	g.run("tag", "-a", "-m", "v1", "network/upf/v1")
	g.run("push", "--quiet", "origin", "drafts/network/upf/w1", "network/upf/v1")
	refs := gtRefs(t, env, env.CatalogRepo)
	if refs["refs/heads/main"] != head || refs["refs/heads/drafts/network/upf/w1"] != draft || refs["refs/tags/network/upf/v1"] == "" {
		t.Fatalf("refs %v", refs)
	}

	// The installation token as the token user name, and with x-access-token.
	h := gtNewGit(t, "porchbot")
	h.run("clone", "--quiet", gtURL(env, env.CatalogRepo, env.InstallationToken(t), ""), ".")
	if got := h.run("rev-parse", "HEAD"); got != head {
		t.Fatalf("clone head %s", got)
	}
	h.run("fetch", "--quiet", "origin", "refs/tags/*:refs/tags/*")
	if h.run("rev-parse", "network/upf/v1^{commit}") != draft {
		t.Fatal("tag not fetched")
	}
	h.run("remote", "set-url", "origin", gtURL(env, env.CatalogRepo, "x-access-token", env.InstallationToken(t)))
	h.run("push", "--quiet", "origin", ":drafts/network/upf/w1")
	if _, ok := gtRefs(t, env, env.CatalogRepo)["refs/heads/drafts/network/upf/w1"]; ok {
		t.Fatal("branch not deleted")
	}
	// Without credentials git is refused cleanly, without prompting.
	n := gtNewGit(t, "nobody")
	out, err := n.try("ls-remote", env.GitURL(env.CatalogRepo))
	if err == nil || !strings.Contains(out, "could not read Username") && !strings.Contains(out, "Authentication failed") {
		t.Fatalf("anonymous ls-remote: %v\n%s", err, out)
	}
}

// TestGitHTTPConcurrentPushes: pushes to one repository are serialised;
// each lands and sends its webhooks.
func TestGitHTTPConcurrentPushes(t *testing.T) {
	env := forgetest.New(t)
	hooks := gtNewHooks(t, env)
	gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})
	url := gtURL(env, env.CatalogRepo, "bob", forgetest.BobToken)
	const n = 6
	gits := make([]*gtGit, n)
	for i := range gits {
		gits[i] = gtNewGit(t, "bob")
		gits[i].run("clone", "--quiet", url, ".")
		gits[i].run("checkout", "--quiet", "-b", fmt.Sprintf("drafts/w%d", i))
		gits[i].commit(fmt.Sprintf("w%d", i), map[string]string{"f.txt": fmt.Sprint(i)})
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range gits {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = gits[i].try("push", "--quiet", "origin", fmt.Sprintf("drafts/w%d", i))
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	refs := gtRefs(t, env, env.CatalogRepo)
	pushes := 0
	for _, h := range hooks.take(t, env) {
		if p, ok := h.Payload.(*github.PushEvent); ok && p.GetCreated() && refs[p.GetRef()] == p.GetAfter() {
			pushes++
		}
	}
	if len(refs) != n+1 || pushes != n {
		t.Fatalf("%d refs, %d push webhooks", len(refs), pushes)
	}
}
