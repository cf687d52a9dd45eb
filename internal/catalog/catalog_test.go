package catalog

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/porchbot/porchbot/internal/index"
)

func revs(pkg string, n int) []index.Revision {
	var out []index.Revision
	for i := n; i >= 1; i-- {
		out = append(out, index.Revision{Revision: i, Tag: pkg + "/v" + string(rune('0'+i)), Commit: strings.Repeat(string(rune('a'+i)), 40)})
	}
	return out
}

// Build merges recorded and live downstreams (live wins), marks those
// behind the latest revision, and files drafts and proposals under their
// packages, adding unpublished ones.
func TestBuildDownstreamsDraftsProposals(t *testing.T) {
	idx := &index.Index{Packages: []index.Package{
		{Name: "web", Revisions: revs("web", 3), Downstreams: []index.Downstream{
			{Repository: "acme/edge", Package: "web", Revision: 1}, {Repository: "acme/core", Package: "web", Revision: 3}}},
	}}
	r := Build(Input{Ref: RepoRef{Owner: "acme", Name: "catalog"}, Index: idx,
		Live:      map[string][]Downstream{"web": {{Repository: "ACME/edge", Package: "web", Revision: 2}, {Repository: "acme/lab", Package: "w"}}},
		Drafts:    []Draft{{Package: "new", Workspace: "w1"}, {Package: "web", Workspace: "b"}, {Package: "web", Workspace: "a"}},
		Proposals: []Proposal{{Number: 4, Packages: []string{"web"}}, {Number: 9, Packages: []string{"web", "new"}}}})
	web, ok := r.Package("web")
	if !ok || web.Latest() != 3 {
		t.Fatalf("web: %+v", web)
	}
	got := map[string]Downstream{}
	for _, d := range web.Downstreams {
		got[strings.ToLower(d.Repository)+" "+d.Package] = d
	}
	if len(got) != 3 || got["acme/edge web"].Revision != 2 || !got["acme/edge web"].Behind ||
		got["acme/core web"].Behind || got["acme/lab w"].Behind || web.Behind() != 1 {
		t.Errorf("downstreams: %+v", web.Downstreams)
	}
	if len(web.Drafts) != 2 || web.Drafts[0].Workspace != "a" || len(web.Proposals) != 2 || web.Proposals[0].Number != 9 {
		t.Errorf("web's drafts %+v, proposals %+v", web.Drafts, web.Proposals)
	}
	n, ok := r.Package("new")
	if !ok || n.Latest() != 0 || len(n.Drafts) != 1 || len(n.Proposals) != 1 {
		t.Errorf("new (a draft's, unpublished): %+v %v", n, ok)
	}
	if r.Packages[0].Name != "new" || r.Packages[1].Name != "web" {
		t.Errorf("packages not sorted: %v, %v", r.Packages[0].Name, r.Packages[1].Name)
	}
}

func TestTrackedRevision(t *testing.T) {
	p := index.Package{Name: "net/web", Revisions: []index.Revision{{Revision: 2, Commit: "c2"}, {Revision: 1, Commit: "c1"}}}
	for _, c := range []struct {
		ref, lockRef, lockCommit string
		want                     int
	}{
		{"net/web/v2", "", "", 2},
		{"main", "refs/tags/net/web/v1", "", 1},
		{"main", "main", "c1", 1},
		{"other/v3", "", "", 0},
		{"main", "", "zz", 0},
	} {
		if got := TrackedRevision(p, c.ref, c.lockRef, c.lockCommit); got != c.want {
			t.Errorf("TrackedRevision(%q, %q, %q) = %d, want %d", c.ref, c.lockRef, c.lockCommit, got, c.want)
		}
	}
}

// Filter hides an unreadable repository and the downstreams in
// unreadable ones, and leaves the shared view as it was.
func TestViewerFilter(t *testing.T) {
	r := Build(Input{Ref: RepoRef{Owner: "acme", Name: "catalog"}, Index: &index.Index{Packages: []index.Package{{Name: "web",
		Revisions: revs("web", 1), Downstreams: []index.Downstream{{Repository: "acme/edge", Package: "a"}, {Repository: "globex/secret", Package: "b"}}}}}})
	alice := Viewer{Login: "alice", CanRead: func(n string) bool { return n == "acme/catalog" || n == "acme/edge" }}
	seen := alice.Filter(r)
	if seen == nil || len(seen.Packages[0].Downstreams) != 1 || seen.Packages[0].Downstreams[0].Repository != "acme/edge" {
		t.Fatalf("alice sees %+v", seen)
	}
	if len(r.Packages[0].Downstreams) != 2 {
		t.Error("Filter changed the shared view")
	}
	if (Viewer{Login: "dave", CanRead: func(n string) bool { return n == "acme/edge" }}).Filter(r) != nil {
		t.Error("dave sees a repository he cannot read")
	}
	if (Viewer{}).Filter(r) != nil {
		t.Error("a viewer with no read check sees the repository")
	}
	if v := alice.Visible([]RepoRef{{Owner: "acme", Name: "catalog"}, {Owner: "globex", Name: "secret"}}); len(v) != 1 {
		t.Errorf("visible to alice: %v", v)
	}
}

// commitTree writes files as a commit of repo.
func commitTree(t *testing.T, repo *git.Repository, files map[string]string) plumbing.Hash {
	t.Helper()
	fs := map[string][]byte{}
	for k, v := range files {
		fs[k] = []byte(v)
	}
	h, err := writeCommit(repo, fs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// writeCommit stores files as nested trees and a commit.
func writeCommit(repo *git.Repository, files map[string][]byte) (plumbing.Hash, error) {
	type dir struct {
		files map[string][]byte
		dirs  map[string]*dir
	}
	root := &dir{files: map[string][]byte{}, dirs: map[string]*dir{}}
	for p, b := range files {
		d := root
		parts := strings.Split(p, "/")
		for _, seg := range parts[:len(parts)-1] {
			if d.dirs[seg] == nil {
				d.dirs[seg] = &dir{files: map[string][]byte{}, dirs: map[string]*dir{}}
			}
			d = d.dirs[seg]
		}
		d.files[parts[len(parts)-1]] = b
	}
	var write func(d *dir) (plumbing.Hash, error)
	write = func(d *dir) (plumbing.Hash, error) {
		var entries []object.TreeEntry
		for name, b := range d.files {
			obj := repo.Storer.NewEncodedObject()
			obj.SetType(plumbing.BlobObject)
			wr, _ := obj.Writer()
			_, _ = wr.Write(b)
			_ = wr.Close()
			h, err := repo.Storer.SetEncodedObject(obj)
			if err != nil {
				return h, err
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: 0o100644, Hash: h})
		}
		for name, sub := range d.dirs {
			h, err := write(sub)
			if err != nil {
				return h, err
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: 0o40000, Hash: h})
		}
		sortEntries(entries)
		tree := &object.Tree{Entries: entries}
		obj := repo.Storer.NewEncodedObject()
		if err := tree.Encode(obj); err != nil {
			return plumbing.ZeroHash, err
		}
		return repo.Storer.SetEncodedObject(obj)
	}
	th, err := write(root)
	if err != nil {
		return th, err
	}
	sig := object.Signature{Name: "a", Email: "a@x", When: time.Unix(1700000000, 0)}
	c := &object.Commit{Author: sig, Committer: sig, Message: "x", TreeHash: th}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return repo.Storer.SetEncodedObject(obj)
}

func sortEntries(es []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == 0o40000 {
			return e.Name + "/"
		}
		return e.Name
	}
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && key(es[j]) < key(es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// The diff of a package between two commits: only its directory, changed
// lines with three lines of context, added and deleted files, big files
// listed without lines.
func TestDiffTrees(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	long := func(mid string) string {
		var b strings.Builder
		for i := 0; i < 20; i++ {
			if i == 10 {
				b.WriteString(mid + "\n")
				continue
			}
			b.WriteString("line\n")
		}
		return b.String()
	}
	big := strings.Repeat("x", MaxDiffFileBytes+1)
	a := commitTree(t, repo, map[string]string{"pkgs/web/cm.yaml": long("old"), "pkgs/web/gone.yaml": "g\n",
		"pkgs/web/big.txt": big, "other/x.yaml": "1\n"})
	b := commitTree(t, repo, map[string]string{"pkgs/web/cm.yaml": long("new"), "pkgs/web/new.yaml": "n\n",
		"pkgs/web/big.txt": big + "y", "other/x.yaml": "2\n"})
	files, truncated, err := DiffTrees(context.Background(), repo, a, b, "pkgs/web")
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	byName := map[string]FileDiff{}
	for _, f := range files {
		byName[f.Name()] = f
	}
	if len(files) != 4 {
		t.Fatalf("files: %+v", files)
	}
	cm := byName["cm.yaml"]
	var ops []string
	for _, l := range cm.Lines {
		ops = append(ops, l.Op+l.Text)
	}
	want := []string{"…", " line", " line", " line", "-old", "+new", " line", " line", " line", "…"}
	if strings.Join(ops, "|") != strings.Join(want, "|") || cm.Added != 1 || cm.Del != 1 {
		t.Errorf("cm.yaml lines %q, want %q", ops, want)
	}
	if g := byName["gone.yaml"]; g.To != "" || g.Del != 1 {
		t.Errorf("gone.yaml: %+v", g)
	}
	if n := byName["new.yaml"]; n.From != "" || n.Added != 1 {
		t.Errorf("new.yaml: %+v", n)
	}
	if bg := byName["big.txt"]; !bg.Large || len(bg.Lines) != 0 {
		t.Errorf("big.txt: large %v, %d lines", bg.Large, len(bg.Lines))
	}
	none, _, err := DiffTrees(context.Background(), repo, a, b, "absent")
	if err != nil || len(none) != 0 {
		t.Errorf("absent directory: %v %v", none, err)
	}
}

// Pages escape what repositories hold.
func TestRenderEscapes(t *testing.T) {
	r := Build(Input{Ref: RepoRef{Owner: "acme", Name: "catalog"}, Web: "https://github.com/acme/catalog",
		Index: &index.Index{Packages: []index.Package{{Name: "net/web", Description: `<script>alert(1)</script>`, Revisions: revs("net/web", 2)}}}})
	var b bytes.Buffer
	if err := Render(&b, PageRepo, Page{Title: "acme/catalog", Login: "alice", Data: r}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("description not escaped:\n%s", page)
	}
	if !strings.Contains(page, `href="/repos/acme/catalog/packages/net/web"`) {
		t.Errorf("package link missing:\n%s", page)
	}
	b.Reset()
	p, _ := r.Package("net/web")
	if err := Render(&b, PagePackage, Page{Title: "net/web", Data: PackageView{Repo: r, Package: p}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `href="/repos/acme/catalog/diff/net/web?from=1&amp;to=2"`) {
		t.Errorf("diff link missing:\n%s", b.String())
	}
}

type countingLoader struct {
	n       atomic.Int32
	started chan struct{}
	gate    chan struct{}
	fail    error
}

func (l *countingLoader) Load(ctx context.Context, ref RepoRef) (*Repository, error) {
	if l.n.Add(1) == 1 {
		close(l.started)
		<-l.gate
	}
	if l.fail != nil {
		return nil, l.fail
	}
	return &Repository{Ref: ref, IndexSource: time.Now().String()}, nil
}

// The cache loads a repository once for concurrent first requests, serves
// a stale view while reloading, and keeps the view when a reload fails.
func TestCacheLoadsOnceAndServesStale(t *testing.T) {
	now := time.Unix(1700000000, 0)
	l := &countingLoader{started: make(chan struct{}), gate: make(chan struct{})}
	c := &Cache{Loader: l, MaxAge: time.Minute, RetryAfter: time.Second, Now: func() time.Time { return now }}
	ref := RepoRef{Owner: "acme", Name: "catalog"}
	errs := make(chan error, 2)
	get := func() {
		_, err := c.Get(context.Background(), ref)
		errs <- err
	}
	go get()
	<-l.started // the first Get's load runs; the second Get joins it
	go get()
	close(l.gate)
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	first, _ := c.Get(context.Background(), ref)
	if l.n.Load() != 1 {
		t.Fatalf("%d loads for two concurrent first requests", l.n.Load())
	}
	now = now.Add(2 * time.Minute)
	l.fail = errors.New("GitHub is down")
	got, err := c.Get(context.Background(), ref)
	if err != nil || got != first {
		t.Fatalf("stale view not served: %v %v", got, err)
	}
	c.waitIdle(ref)
	if got, _ := c.Get(context.Background(), ref); got != first {
		t.Error("a failed reload dropped the view")
	}
}

// waitIdle waits for the load of ref under way, if any .
func (c *Cache) waitIdle(ref RepoRef) {
	c.mu.Lock()
	e, ok := c.entries[strings.ToLower(ref.FullName())]
	var ch chan struct{}
	if ok {
		ch = e.loading
	}
	c.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// TestChecksInWords (#26 §4): a check's state is shown in words, with the
// first line of its summary, escaped; action_required is not shown raw.
func TestChecksInWords(t *testing.T) {
	r := Build(Input{Ref: RepoRef{Owner: "acme", Name: "catalog"}, Web: "https://github.com/acme/catalog",
		Proposals: []Proposal{{Number: 7, Title: "More pods", Packages: []string{"basens"}, Checks: []Check{
			{Name: "porchbot/approval", Status: "completed", Conclusion: "action_required", Summary: "Waiting for 1 approval <b>(0 of 1)</b>"},
			{Name: "porchbot/render", Status: "in_progress"},
		}}}})
	var b bytes.Buffer
	if err := Render(&b, PageRepo, Page{Title: "acme/catalog", Data: r}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"porchbot/approval: action required", "Waiting for 1 approval &lt;b&gt;(0 of 1)&lt;/b&gt;", "porchbot/render: in progress"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, ": action_required<") || strings.Contains(page, "<b>(0 of 1)") {
		t.Errorf("a raw conclusion or an unescaped summary:\n%s", page)
	}
}
