package lifecycle_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
)

func TestParseCloneSource(t *testing.T) {
	const web = "https://ghe.example.com/"
	for _, tc := range []struct {
		in   string
		want proposals.CloneSource
		err  string
	}{
		{in: "acme/catalog/network/upf@v3", want: proposals.CloneSource{Owner: "acme", Repo: "catalog", Package: "network/upf", Revision: 3}},
		{in: "acme/catalog/basens@v12", want: proposals.CloneSource{Owner: "acme", Repo: "catalog", Package: "basens", Revision: 12}},
		{in: "https://ghe.example.com/acme/catalog.git/network/upf@network/upf/v3",
			want: proposals.CloneSource{Owner: "acme", Repo: "catalog", URL: true, Directory: "network/upf", Ref: "network/upf/v3"}},
		{in: "https://GHE.example.com/acme/catalog.git/basens@main",
			want: proposals.CloneSource{Owner: "acme", Repo: "catalog", URL: true, Directory: "basens", Ref: "main"}},
		{in: "https://ghe.example.com/acme/catalog.git/basens", want: proposals.CloneSource{Owner: "acme", Repo: "catalog", URL: true, Directory: "basens"}},
		{in: "https://ghe.example.com/acme/catalog.git@v1", want: proposals.CloneSource{Owner: "acme", Repo: "catalog", URL: true, Ref: "v1"}},
		{in: "https://ghe.example.com/acme/catalog@v1", want: proposals.CloneSource{Owner: "acme", Repo: "catalog", URL: true, Ref: "v1"}},
		{in: "acme/catalog/basens", err: "give the revision"},
		{in: "acme/catalog/basens@3", err: "is not a revision"},
		{in: "acme/basens@v1", err: "owner/repo/<package>@v<N>"},
		{in: "acme/catalog/../x@v1", err: "invalid package name"},
		{in: "ac me/catalog/x@v1", err: "is not a GitHub repository name"},
		{in: "https://gitlab.com/acme/catalog.git/basens@v1", err: "only from repositories on https://ghe.example.com"},
		{in: "http://ghe.example.com/acme/catalog.git/basens@v1", err: "only from repositories on https://ghe.example.com"},
		{in: "https://x:y@ghe.example.com/acme/catalog.git/basens@v1", err: "credentials"},
		{in: "https://ghe.example.com/acme/catalog/tree/main/basens", err: "write it https://host/owner/repo.git/<dir>@<ref>"},
		{in: "https://ghe.example.com/acme/catalog.git/basens@", err: "the ref after @ is empty"},
		{in: "", err: "missing"},
	} {
		got, err := proposals.ParseCloneSource(tc.in, web)
		if tc.err != "" {
			ndWantRequestError(t, err, tc.err)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseCloneSource(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// clUpstreamUPF is a package exercising what kpt pkg get touches: a Kptfile
// whose lists are indented as kpt writes them, resources with compact and
// wide lists, comments, an existing merge comment, a cluster-scoped and a
// grouped resource, a non-resource YAML file, a subpackage.
var clUpstreamUPF = map[string][]byte{
	"network/upf/Kptfile": []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: User plane function
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: upf
`),
	"network/upf/README.md": []byte("# upf\n"),
	"network/upf/deploy.yaml": []byte(`# The UPF.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: upf
  namespace: upf
  labels:
    app: upf
spec:
  template:
    spec:
      containers:
      - name: upf
        image: upf:1.0
        args: ["--fast", "--x"]
---
apiVersion: v1
kind: Service
metadata: # the service
    name: upf
spec:
    ports:
        - port: 8805
          protocol: UDP
---
apiVersion: v1
kind: ConfigMap
metadata: # kpt-merge: other/original
  name: renamed
data:
  a: "1"
`),
	"network/upf/ns.yaml":          []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: upf\n"),
	"network/upf/data/values.yml":  []byte("key: value\nlist:\n- a\n- b\n"),
	"network/upf/sub/Kptfile":      []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n"),
	"network/upf/sub/cm.yaml":      []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub-cm\n  namespace: upf\n"),
	"network/upf/sub/notes.txt":    []byte("plain text\n"),
	"network/upf/empty-meta.yaml":  []byte("apiVersion: v1\nkind: List\nitems: []\n"),
	"network/other/Kptfile":        []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: other\n"),
	"network/upf/crd/example.yaml": []byte("apiVersion: example.com/v1alpha1\nkind: Widget\nmetadata:\n  name: w\n  labels:\n    x: y\nspec:\n  size: 3\n"),
}

// clEdgeRepo creates acme/edge-1 (alice admin) with a first commit and opens
// a session on it.
func (h *harness) clEdgeRepo(t *testing.T) *core.Session {
	t.Helper()
	if _, err := h.Env.Forge.CreateRepo("acme", "edge-1", forge.RepoOptions{Private: true,
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin}}); err != nil {
		t.Fatal(err)
	}
	alice, _ := h.Env.Forge.Account("alice")
	if _, err := h.Env.Forge.CommitFiles("acme/edge-1", "main", map[string][]byte{"README.md": []byte("edge\n")}, "seed", alice); err != nil {
		t.Fatal(err)
	}
	s, err := h.Opener.Open(context.Background(), core.Repo{Owner: "acme", Name: "edge-1", InstallationID: h.Env.Installation.ID, DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clOpenOther opens other repositories of the test installation.
func (h *harness) clOpenOther(ctx context.Context, owner, repo string) (*core.Session, error) {
	return h.Opener.Open(ctx, core.Repo{Owner: owner, Name: repo, InstallationID: h.Env.Installation.ID, DefaultBranch: "main"})
}

func TestCloneMatchesKptPkgGet(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, clUpstreamUPF)
	h.ndTag(t, "acme/catalog", "network/upf/v1", sha)
	edge := h.clEdgeRepo(t)

	src, err := proposals.ParseCloneSource("acme/catalog/network/upf@v1", h.Env.Forge.BaseURL()+"/")
	if err != nil {
		t.Fatal(err)
	}
	d, err := proposals.Clone(ctx, edge, proposals.CloneRequest{Source: src, Package: "upf", RequestedBy: "alice"}, h.clOpenOther)
	if err != nil {
		t.Fatal(err)
	}
	repoURL := h.Env.Forge.BaseURL() + "/acme/catalog"
	if d.Branch != "drafts/upf/v1" || d.Task != "clone" || d.SourceCommit.String() != sha || d.Source != repoURL+"/network/upf@network/upf/v1" {
		t.Fatalf("draft %+v", d)
	}
	got := ndTree(t, h.clOpenRepo(t, "edge-1"), d.Commit, "upf")

	kf, err := kptfile.Parse(got["Kptfile"])
	if err != nil {
		t.Fatal(err)
	}
	k := kf.Kptfile()
	wantUp := kptfile.Upstream{Type: "git", Git: &kptfile.Git{Repo: repoURL, Directory: "/network/upf", Ref: "network/upf/v1"}, UpdateStrategy: "resource-merge"}
	wantLock := kptfile.UpstreamLock{Type: "git", Git: &kptfile.GitLock{Repo: repoURL, Directory: "/network/upf", Ref: "network/upf/v1", Commit: sha}}
	if k.Metadata.Name != "upf" || k.Upstream == nil || *k.Upstream.Git != *wantUp.Git || k.Upstream.UpdateStrategy != wantUp.UpdateStrategy ||
		k.UpstreamLock == nil || *k.UpstreamLock.Git != *wantLock.Git {
		t.Fatalf("Kptfile:\n%s", got["Kptfile"])
	}
	if !strings.Contains(string(got["deploy.yaml"]), "metadata: # kpt-merge: upf/upf\n") ||
		!strings.Contains(string(got["deploy.yaml"]), "internal.kpt.dev/upstream-identifier: 'apps|Deployment|upf|upf'") ||
		!strings.Contains(string(got["deploy.yaml"]), "metadata: # kpt-merge: other/original\n") {
		t.Errorf("merge comments missing:\n%s", got["deploy.yaml"])
	}
	if string(got["sub/notes.txt"]) != "plain text\n" || string(got["README.md"]) != "# upf\n" {
		t.Errorf("non-YAML files must be copied as they are")
	}
	_, msg := h.ndHeadMessage(t, "acme/edge-1", d.Branch)
	tr, _ := packages.FindTrailer(msg)
	if tr.Task == nil || tr.Task.Type != "clone" || !strings.Contains(string(tr.Task.Spec), `"ref":"network/upf/v1"`) || tr.Package != "upf" {
		t.Fatalf("trailer %+v", tr)
	}

	// The same fetch by kpt pkg get, byte for byte.
	want := clKptPkgGet(t, h, repoURL+".git/network/upf@network/upf/v1", "upf")
	if want == nil {
		return
	}
	// porchbot's revisions are annotated tags: kpt pkg get locks the tag
	// object (what ls-remote lists for the ref), porchbot the commit it
	// names (docs/updates.md). Both resolve to the same tree.
	tagRef, _, err := h.User(forgetest.AliceToken).Git.GetRef(ctx, "acme", "catalog", "tags/network/upf/v1")
	if err != nil {
		t.Fatal(err)
	}
	want["Kptfile"] = bytes.ReplaceAll(want["Kptfile"], []byte("commit: "+tagRef.GetObject().GetSHA()), []byte("commit: "+sha))
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("kpt pkg get wrote %s, porchbot did not", name)
		} else if !bytes.Equal(g, w) {
			t.Errorf("%s differs\nporchbot:\n%s\nkpt pkg get:\n%s", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("porchbot wrote %s, kpt pkg get did not", name)
		}
	}
}

// clOpenRepo opens a session on acme/<name>.
func (h *harness) clOpenRepo(t *testing.T, name string) *core.Session {
	t.Helper()
	s, err := h.clOpenOther(context.Background(), "acme", name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clKptPkgGet runs kpt pkg get against the forge (with the installation's
// token) and returns the files it wrote; nil (test skipped part) without
// kpt or git.
func clKptPkgGet(t *testing.T, h *harness, pkgURL, dest string) map[string][]byte {
	t.Helper()
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Log("kpt is not installed; the byte-for-byte comparison with kpt pkg get is skipped")
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git is not installed; the comparison with kpt pkg get is skipped")
		return nil
	}
	base := t.TempDir()
	auth := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+h.Env.InstallationToken(t)))
	cmd := exec.Command(kpt, "pkg", "get", pkgURL, dest)
	cmd.Dir = base
	cmd.Env = append(os.Environ(), "HOME="+base, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0="+auth)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kpt pkg get: %v\n%s", err, out)
	}
	out := map[string][]byte{}
	root := filepath.Join(base, dest)
	err = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCloneFromAGitURL(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, clUpstreamUPF)
	s := h.Open(t)
	web := h.Env.Forge.BaseURL() + "/"
	for _, tc := range []struct {
		src, pkg, ref string
	}{
		{web + "acme/catalog.git/network/upf@main", "edge/upf-main", "main"},
		{web + "acme/catalog.git/network/upf", "edge/upf-default", "main"},
		{web + "acme/catalog.git/network/upf@" + sha, "edge/upf-sha", sha},
	} {
		src, err := proposals.ParseCloneSource(tc.src, web)
		if err != nil {
			t.Fatal(err)
		}
		d, err := proposals.Clone(ctx, s, proposals.CloneRequest{Source: src, Package: tc.pkg}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		kf, err := kptfile.Parse(ndTree(t, h.Open(t), d.Commit, tc.pkg)["Kptfile"])
		if err != nil {
			t.Fatal(err)
		}
		k := kf.Kptfile()
		if k.Upstream.Git.Ref != tc.ref || k.UpstreamLock.Git.Commit != sha || k.UpstreamLock.Git.Directory != "/network/upf" ||
			k.Metadata.Name != tc.pkg[strings.LastIndex(tc.pkg, "/")+1:] {
			t.Errorf("%s: upstream %+v lock %+v name %s", tc.src, k.Upstream.Git, k.UpstreamLock.Git, k.Metadata.Name)
		}
	}
}

func TestCloneRefusals(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, clUpstreamUPF)
	h.ndTag(t, "acme/catalog", "network/upf/v1", sha)
	s := h.Open(t)
	web := h.Env.Forge.BaseURL() + "/"
	for _, tc := range []struct {
		src, pkg, want string
	}{
		{"acme/catalog/network/upf@v2", "x", "has no revision `v2` of `network/upf` (published: `v1`)"},
		{"acme/catalog/network/other@v1", "x", "has no published revision of `network/other`"},
		{web + "acme/catalog.git/network@main", "x", "is not a kpt package"},
		{web + "acme/catalog.git/nowhere@main", "x", "has no directory `nowhere`"},
		{web + "acme/catalog.git/network/upf@no-such-ref", "x", "no tag, branch or commit `no-such-ref`"},
		{"acme/catalog/network/upf@v1", "network/other", "already exists"},
		{"acme/edge-9/network/upf@v1", "x", "another repository is not available"},
	} {
		src, err := proposals.ParseCloneSource(tc.src, web)
		if err != nil {
			t.Fatal(err)
		}
		_, err = proposals.Clone(ctx, s, proposals.CloneRequest{Source: src, Package: tc.pkg}, nil)
		ndWantRequestError(t, err, tc.want)
	}
}
