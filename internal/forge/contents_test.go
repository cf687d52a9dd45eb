package forge_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestContentsFileAndDirectory(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c := env.Client(forgetest.CarolToken) // read access is enough
	long := strings.Repeat("0123456789", 20) + "\n"
	head := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n", "network/upf/Kptfile": long,
		"network/upf/deployment.yaml": "kind: Deployment\n", "network/smf/Kptfile": "kind: Kptfile\n"})
	gtSeed(t, env, "drafts/w1", map[string]string{"README.md": "# draft\n"})

	file, dir, _, err := c.Repositories.GetContents(ctx, gtOwner, gtName, "network/upf/Kptfile", nil)
	if err != nil || dir != nil || file == nil {
		t.Fatalf("file: %v %v %v", file, dir, err)
	}
	content, err := file.GetContent()
	if err != nil || content != long {
		t.Fatalf("content %q %v", content, err)
	}
	if file.GetType() != "file" || file.GetEncoding() != "base64" || file.GetName() != "Kptfile" ||
		file.GetPath() != "network/upf/Kptfile" || file.GetSize() != len(long) || len(file.GetSHA()) != 40 ||
		!strings.Contains(file.GetURL(), "/api/v3/repos/acme/catalog/contents/network/upf/Kptfile?ref=main") ||
		!strings.HasSuffix(file.GetGitURL(), "/git/blobs/"+file.GetSHA()) || file.GetHTMLURL() == "" || file.GetDownloadURL() == "" {
		t.Fatalf("file object %+v", file)
	}
	// GitHub wraps base64 at 60 characters a line.
	for _, line := range strings.Split(strings.TrimSuffix(*file.Content, "\n"), "\n") {
		if len(line) > 60 {
			t.Fatalf("base64 line of %d characters", len(line))
		}
	}
	if !strings.Contains(*file.Content, "\n") {
		t.Fatal("base64 content is not wrapped")
	}

	_, dir, _, err = c.Repositories.GetContents(ctx, gtOwner, gtName, "network", nil)
	if err != nil || len(dir) != 2 || dir[0].GetName() != "smf" || dir[0].GetType() != "dir" || dir[0].GetPath() != "network/smf" ||
		dir[0].DownloadURL != nil {
		t.Fatalf("directory: %v %v", dir, err)
	}
	_, root, _, err := c.Repositories.GetContents(ctx, gtOwner, gtName, "", nil)
	if err != nil || len(root) != 2 || root[0].GetName() != "README.md" || root[0].GetType() != "file" || root[1].GetName() != "network" {
		t.Fatalf("root: %v %v", root, err)
	}
	for _, ref := range []string{"drafts/w1", "refs/heads/drafts/w1"} {
		f, _, _, err := c.Repositories.GetContents(ctx, gtOwner, gtName, "README.md", &github.RepositoryContentGetOptions{Ref: ref})
		if s, _ := f.GetContent(); err != nil || s != "# draft\n" {
			t.Fatalf("at %s: %q %v", ref, s, err)
		}
	}
	f, _, _, err := c.Repositories.GetContents(ctx, gtOwner, gtName, "network/smf/Kptfile", &github.RepositoryContentGetOptions{Ref: head})
	if s, _ := f.GetContent(); err != nil || s != "kind: Kptfile\n" {
		t.Fatalf("at a sha: %q %v", s, err)
	}
	_, _, resp, err := c.Repositories.GetContents(ctx, gtOwner, gtName, "network/nope", nil)
	gtWantStatus(t, "absent path", resp, err, http.StatusNotFound)
	_, _, resp, err = c.Repositories.GetContents(ctx, gtOwner, gtName, "README.md/x", nil)
	gtWantStatus(t, "below a file", resp, err, http.StatusNotFound)
	_, _, resp, err = c.Repositories.GetContents(ctx, gtOwner, gtName, "README.md", &github.RepositoryContentGetOptions{Ref: "nope"})
	gtWantStatus(t, "absent ref", resp, err, http.StatusNotFound)
	_, _, resp, err = env.Client(forgetest.MalloryToken).Repositories.GetContents(ctx, gtOwner, gtName, "README.md", nil)
	gtWantStatus(t, "mallory", resp, err, http.StatusNotFound)

	// download_url serves the bytes, with the caller's credentials.
	rc, _, err := c.Repositories.DownloadContents(ctx, gtOwner, gtName, "network/upf/deployment.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	if string(data) != "kind: Deployment\n" {
		t.Fatalf("download %q", data)
	}
	anon, err := http.Get(file.GetDownloadURL())
	if err != nil {
		t.Fatal(err)
	}
	anon.Body.Close()
	if anon.StatusCode != http.StatusNotFound {
		t.Fatalf("anonymous download of a private file: %d", anon.StatusCode)
	}
	// The raw media type answers the bytes from the API too.
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/catalog/contents/README.md", nil)
	req.Header.Set("Accept", "application/vnd.github.raw")
	var sb strings.Builder
	if _, err := c.Do(ctx, req, &sb); err != nil || sb.String() != "# catalog\n" {
		t.Fatalf("raw contents %q %v", sb.String(), err)
	}
}

func TestContentsConditionalGet(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c := env.Client(forgetest.AliceToken)
	gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})
	before := env.Forge.Stats().Snapshot()
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/catalog/contents/README.md", nil)
	resp, err := c.Do(ctx, req, &github.RepositoryContent{})
	if err != nil {
		t.Fatal(err)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog/contents/README.md", nil)
	req.Header.Set("If-None-Match", etag)
	resp, _ = c.Do(ctx, req, nil)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("want 304, got %d", resp.StatusCode)
	}
	delta := forge.StatsDelta(before, env.Forge.Stats().Snapshot())
	var n304 int64
	for k, v := range delta {
		if strings.HasPrefix(k, "GET /repos/{owner}/{repo}/contents/") && strings.HasSuffix(k, " 304") {
			n304 += v
		}
	}
	if n304 != 1 {
		t.Fatalf("304s counted: %v", delta)
	}
	// A change of the file changes the answer.
	gtSeed(t, env, "main", map[string]string{"README.md": "# changed\n"})
	req, _ = c.NewRequest(http.MethodGet, "repos/acme/catalog/contents/README.md", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err = c.Do(ctx, req, &github.RepositoryContent{})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after a change: %v %v", resp, err)
	}
}

func TestContentsCreateUpdateDeleteFile(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	hooks := gtNewHooks(t, env)
	c := env.Client(forgetest.BobToken)
	head := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n"})

	created, resp, err := c.Repositories.CreateFile(ctx, gtOwner, gtName, "docs/new.md", &github.RepositoryContentFileOptions{
		Message: github.String("Add docs"), Content: []byte("new\n")})
	gtWantStatus(t, "create file", resp, err, http.StatusCreated)
	if created.GetContent().GetPath() != "docs/new.md" || len(created.Commit.Parents) != 1 || created.Commit.Parents[0].GetSHA() != head ||
		created.Commit.GetAuthor().GetName() != "bob" {
		t.Fatalf("created %+v", created)
	}
	_, resp, err = c.Repositories.CreateFile(ctx, gtOwner, gtName, "docs/new.md", &github.RepositoryContentFileOptions{
		Message: github.String("Again"), Content: []byte("x\n")})
	gtWantStatus(t, "create an existing file without sha", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Repositories.UpdateFile(ctx, gtOwner, gtName, "docs/new.md", &github.RepositoryContentFileOptions{
		Message: github.String("Edit"), Content: []byte("x\n"), SHA: github.String(strings.Repeat("0", 40))})
	gtWantStatus(t, "update with a stale sha", resp, err, http.StatusConflict)
	updated, resp, err := c.Repositories.UpdateFile(ctx, gtOwner, gtName, "docs/new.md", &github.RepositoryContentFileOptions{
		Message: github.String("Edit"), Content: []byte("edited\n"), SHA: created.GetContent().SHA})
	gtWantStatus(t, "update file", resp, err, http.StatusOK)
	f, _, _, err := c.Repositories.GetContents(ctx, gtOwner, gtName, "docs/new.md", nil)
	if s, _ := f.GetContent(); err != nil || s != "edited\n" || f.GetSHA() != updated.GetContent().GetSHA() {
		t.Fatalf("after update %q %v", s, err)
	}
	_, resp, err = c.Repositories.DeleteFile(ctx, gtOwner, gtName, "docs/new.md", &github.RepositoryContentFileOptions{
		Message: github.String("Remove"), SHA: updated.GetContent().SHA})
	gtWantStatus(t, "delete file", resp, err, http.StatusOK)
	_, _, resp, err = c.Repositories.GetContents(ctx, gtOwner, gtName, "docs", nil)
	gtWantStatus(t, "emptied directory", resp, err, http.StatusNotFound)
	_, resp, err = env.Client(forgetest.CarolToken).Repositories.CreateFile(ctx, gtOwner, gtName, "x", &github.RepositoryContentFileOptions{
		Message: github.String("x"), Content: []byte("x")})
	gtWantStatus(t, "carol writes", resp, err, http.StatusForbidden)

	// Each change was a push to main.
	var pushes []string
	for _, h := range hooks.take(t, env) {
		if p, ok := h.Payload.(*github.PushEvent); ok {
			pushes = append(pushes, p.GetRef()+" "+p.GetHeadCommit().GetMessage()+" "+p.GetPusher().GetName())
		}
	}
	want := "refs/heads/main Add docs bob|refs/heads/main Edit bob|refs/heads/main Remove bob"
	if strings.Join(pushes, "|") != want {
		t.Fatalf("pushes %q, want %q", pushes, want)
	}
}
