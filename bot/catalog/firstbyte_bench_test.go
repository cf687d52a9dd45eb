package catalog

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/catalog"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/index"
)

// Benchmark size and target (issue #10 §3: first byte under 200 ms on a
// repository with 1,000 packages, from porchbot's cache).
const (
	benchPackages  = 1000
	benchRevisions = 10
	benchTarget    = 200 * time.Millisecond
)

type fixedRepos []catalog.RepoRef

func (f fixedRepos) List(context.Context) ([]catalog.RepoRef, error) { return f, nil }

// indexLoader builds the view from index.yaml's bytes, as RepoLoader does
// after reading them from the index branch (no git, no REST: the part of
// a load that grows with the packages).
type indexLoader struct{ data []byte }

func (l indexLoader) Load(_ context.Context, ref catalog.RepoRef) (*catalog.Repository, error) {
	idx, err := index.Decode(l.data)
	if err != nil {
		return nil, err
	}
	return catalog.Build(catalog.Input{Ref: ref, Web: "https://github.com/" + ref.FullName(), DeploymentBranch: "main",
		Index: idx, IndexSource: "index porch/index", Loaded: time.Now()}), nil
}

func benchIndex(b *testing.B) []byte {
	idx := &index.Index{APIVersion: index.APIVersion, Kind: index.Kind, Repository: "acme/catalog"}
	for p := 0; p < benchPackages; p++ {
		name := fmt.Sprintf("pkgs/p%04d", p)
		pkg := index.Package{Name: name, Description: fmt.Sprintf("package %d", p),
			Downstreams: []index.Downstream{{Repository: "acme/edge", Package: name, Revision: 1 + p%benchRevisions}}}
		for r := benchRevisions; r >= 1; r-- {
			pkg.Revisions = append(pkg.Revisions, index.Revision{Revision: r, Tag: fmt.Sprintf("%s/v%d", name, r),
				Commit: fmt.Sprintf("%040x", p*100+r), Digest: fmt.Sprintf("sha256:%064x", p*100+r),
				Published: time.Unix(1700000000+int64(p*100+r), 0).UTC(), Approvers: []string{"alice"}})
		}
		idx.Packages = append(idx.Packages, pkg)
	}
	data, err := index.Encode(idx)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// firstByte is the time from sending GET url to the answer's first byte.
func firstByte(b *testing.B, c *http.Client, u string) time.Duration {
	var start, first time.Time
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Now() }}
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, u, nil)
	start = time.Now()
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	return first.Sub(start)
}

// BenchmarkCatalogFirstByte: a signed-in viewer's repository page (1,000
// packages, 10,000 revisions) and a package page, served from the view
// cache, against the reference of loading the view (decoding index.yaml
// and building the view), measured in the same run; the target is the
// issue's 200 ms to the first byte.
func BenchmarkCatalogFirstByte(b *testing.B) {
	ref := catalog.RepoRef{Owner: "acme", Name: "catalog", Private: true, InstallationID: 1, DefaultBranch: "main"}
	loader := indexLoader{data: benchIndex(b)}
	views := &catalog.Cache{Loader: loader, MaxAge: time.Hour, RetryAfter: time.Second}
	srv, err := New(Options{Repos: fixedRepos{ref}, Views: views, Git: (*gitstore.Store)(nil),
		GitURL: func(o, n string) string { return "https://github.com/" + o + "/" + n + ".git" },
		OAuth:  &OAuth{Web: "https://github.com/"}, Users: func(context.Context, string) *github.Client { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	now := time.Now()
	ss := srv.sessions.create("alice", "unused", now, now.Add(time.Hour))
	ss.read, ss.readAt = map[string]bool{"acme/catalog": true, "acme/edge": true}, now.Add(time.Hour) // fresh for the whole run
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(ts.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: srv.sessions.sign(ss.id)}})
	c := &http.Client{Jar: jar}

	// The reference: one load of the view (what a request would wait for
	// without the cache).
	var load time.Duration
	const loads = 5
	for i := 0; i < loads; i++ {
		start := time.Now()
		if _, err := loader.Load(context.Background(), ref); err != nil {
			b.Fatal(err)
		}
		load += time.Since(start)
	}
	load /= loads
	firstByte(b, c, ts.URL+"/repos/acme/catalog") // fills the cache

	var repoPage, pkgPage time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		repoPage += firstByte(b, c, ts.URL+"/repos/acme/catalog")
		pkgPage += firstByte(b, c, ts.URL+"/repos/acme/catalog/packages/pkgs/p0500")
	}
	b.StopTimer()
	repoPage /= time.Duration(b.N)
	pkgPage /= time.Duration(b.N)
	b.ReportMetric(float64(repoPage.Microseconds())/1000, "ms-first-byte-repo")
	b.ReportMetric(float64(pkgPage.Microseconds())/1000, "ms-first-byte-package")
	b.Logf("%d packages, %d revisions: first byte of the repository page %v, of a package page %v; loading the view (decode index.yaml, build) %v — the cached page is %.1fx faster than a load",
		benchPackages, benchPackages*benchRevisions, repoPage, pkgPage, load, float64(load)/float64(repoPage))
	if repoPage > benchTarget {
		b.Errorf("first byte of the repository page %v, target %v", repoPage, benchTarget)
	}
}
