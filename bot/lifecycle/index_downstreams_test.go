package lifecycle_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/index"
	"github.com/porchbot/porchbot/internal/kptfile"
)

// indexAssetUpload is the forge's count key of a release asset upload.
const indexAssetUpload = "POST /repos/{owner}/{repo}/releases/{id}/assets"

// registry is a DownstreamRegistry that knows a fixed list.
type registry []downstreams.Downstream

func (r registry) TrackingDownstreams(context.Context, *core.Session) []downstreams.Downstream {
	return r
}

// DownstreamsKnown: a fixed list is the whole truth.
func (r registry) DownstreamsKnown(string) bool { return true }

func (r registry) DownstreamsComplete() bool { return true }

func tracking(repo, pkg, dir, ref string, public bool) downstreams.Downstream {
	return downstreams.Downstream{Repo: repo, Package: pkg, Public: public,
		Upstream: kptfile.Git{Repo: "https://github.com/acme/catalog", Directory: dir, Ref: ref}}
}

// TestIndexDownstreams: downstreams are filed under the package they
// track (packages.root taken off the directory); a private repository's
// packages are not named in another repository's index, the repository's
// own are; the revision tracked is read from the lock's ref, else the
// upstream's, when it is a revision tag of that package.
func TestIndexDownstreams(t *testing.T) {
	cfg := config.Default()
	cfg.Packages.Root = "pkgs"
	s := &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog"}, Config: cfg}
	locked := tracking("acme/edge-2", "upf", "/pkgs/network/upf/", "main", true)
	locked.Lock = &kptfile.GitLock{Ref: "network/upf/v3"}
	got := publish.IndexDownstreams(s, []downstreams.Downstream{
		tracking("acme/edge-1", "upf", "pkgs/network/upf", "network/upf/v2", true),
		locked,
		tracking("acme/secret", "upf", "pkgs/network/upf", "network/upf/v2", false),          // private: not named
		tracking("ACME/catalog", "mirror", "pkgs/network/upf", "other/v9", false),            // the same repository
		tracking("acme/catalog", "network/upf", "pkgs/network/upf", "network/upf/v1", false), // itself
		tracking("acme/edge-1", "old", "legacy/upf", "", true),                               // outside packages.root
	})
	want := map[string][]index.Downstream{"network/upf": {
		{Repository: "acme/edge-1", Package: "upf", Revision: 2},
		{Repository: "acme/edge-2", Package: "upf", Revision: 3},
		{Repository: "ACME/catalog", Package: "mirror"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("downstreams %+v\nwant %+v", got, want)
	}
}

// TestUpdateIndexNamesDownstreams: the index lists what the session's
// registry knows, drops what it no longer knows, and, with no registry
// (an offline build's position), keeps what it lists.
func TestUpdateIndexNamesDownstreams(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte(propKptfile)})
	h.tag(t, "basens/v1", sha)
	update := func(r core.DownstreamRegistry) []index.Downstream {
		t.Helper()
		s := h.Open(t)
		s.Downstreams = r
		if _, _, err := publish.UpdateIndex(ctx, s, publish.IndexUpdate{}); err != nil {
			t.Fatal(err)
		}
		return h.indexOnForge(t).Packages[0].Downstreams
	}
	known := registry{tracking("acme/edge-1", "ns", "/basens", "basens/v1", true)}
	if got := update(known); !reflect.DeepEqual(got, []index.Downstream{{Repository: "acme/edge-1", Package: "ns", Revision: 1}}) {
		t.Fatalf("downstreams %+v", got)
	}
	if got := update(nil); len(got) != 1 {
		t.Fatalf("without a registry the index lost its downstreams: %+v", got)
	}
	if got := update(registry{}); len(got) != 0 {
		t.Fatalf("downstreams %+v after the registry forgot them", got)
	}
}

// TestPublishAttachesTheIndex: the release of a publish carries index.yaml,
// the bytes on porch/index that list the revision, for one REST call.
func TestPublishAttachesTheIndex(t *testing.T) {
	f := newPubFixture(t, "")
	f.commit("drafts/basens/w1", "", func(files map[string][]byte) {
		files["basens/Kptfile"] = pubKptfile("basens")
	})
	m1, pr1 := f.land("drafts/basens/w1", "Create basens")
	s := f.h.Open(t)
	calls := f.calls(func() { publishLanding(t, s, m1, pr1) })
	if calls[indexAssetUpload] != 1 {
		t.Fatalf("index uploads %d: %v", calls[indexAssetUpload], calls)
	}
	rel := f.release("basens/v1")
	if rel == nil || len(rel.Assets) != 1 || rel.Assets[0].Name != index.FileName || rel.Assets[0].ContentType != publish.IndexAssetMediaType {
		t.Fatalf("release %+v", rel)
	}
	fc, _, _, err := f.alice.Repositories.GetContents(f.ctx, "acme", "catalog", index.FileName, &github.RepositoryContentGetOptions{Ref: index.DefaultBranch})
	if err != nil {
		t.Fatal(err)
	}
	onBranch, _ := fc.GetContent()
	if string(rel.Assets[0].Data) != onBranch {
		t.Fatalf("asset:\n%s\nbranch:\n%s", rel.Assets[0].Data, onBranch)
	}
	idx, err := index.Decode(rel.Assets[0].Data)
	if err != nil || idx.Packages[0].Revisions[0].Tag != "basens/v1" || idx.Packages[0].Revisions[0].Commit != m1.String() {
		t.Fatalf("asset index %+v (%v)", idx, err)
	}
}
