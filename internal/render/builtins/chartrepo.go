package builtins

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"
	sigsyaml "sigs.k8s.io/yaml"
)

// ChartRepos are the Helm chart repositories the server lets
// render-helm-chart fetch charts from (its allowlist): a chart a package
// does not carry is fetched from one of them or not at all.
type ChartRepos struct {
	allowed []string // normalised repository URLs
	// Client fetches (nil: http.DefaultClient's transport, with a timeout)
	Client *http.Client
}

// Bounds on what is fetched from a repository.
const (
	maxChartIndexBytes   = 8 << 20
	maxChartArchiveBytes = 4 << 20
	chartFetchTimeout    = 30 * time.Second
)

// ParseChartRepos reads allowlist entries (empty ones skipped): each a
// chart repository's URL, http or https, as `helm repo add` takes it.
func ParseChartRepos(entries []string) (*ChartRepos, error) {
	r := &ChartRepos{}
	for _, e := range entries {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		n, err := normalRepoURL(e)
		if err != nil {
			return nil, fmt.Errorf("chart repository allowlist entry %q: %w", e, err)
		}
		r.allowed = append(r.allowed, n)
	}
	return r, nil
}

// normalRepoURL is a repository URL without a trailing slash, query or
// fragment, its scheme and host lower-case.
func normalRepoURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("not an http or https URL of a chart repository")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("a chart repository URL has no credentials, query or fragment")
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// allows reports whether repoURL is one of the allowlisted repositories.
func (r *ChartRepos) allows(repoURL string) bool {
	n, err := normalRepoURL(repoURL)
	if r == nil || err != nil {
		return false
	}
	for _, a := range r.allowed {
		if a == n {
			return true
		}
	}
	return false
}

// fetch fetches the chart name at version (a semver constraint, "" the
// newest stable) from repoURL, which must be allowlisted, into its files.
func (r *ChartRepos) fetch(repoURL, name, version string) ([]*loader.BufferedFile, error) {
	if !r.allows(repoURL) {
		return nil, fmt.Errorf("the chart repository %q is not one the server allows: porchbot fetches charts only "+
			"from the chart repositories its operator lists (--chart-repositories); "+
			"put the chart in the package instead (a chart directory {chartHome}/{name})", repoURL)
	}
	base, _ := normalRepoURL(repoURL)
	ctx, cancel := context.WithTimeout(context.Background(), chartFetchTimeout)
	defer cancel()
	b, err := r.get(ctx, base+"/index.yaml", maxChartIndexBytes)
	if err != nil {
		return nil, err
	}
	var idx repo.IndexFile
	if err := sigsyaml.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("reading %s/index.yaml: %w", base, err)
	}
	idx.SortEntries()
	cv, err := idx.Get(name, version)
	if err != nil {
		return nil, fmt.Errorf("chart %q version %q not found in %s: %w", name, version, base, err)
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("chart %q version %s in %s has no URL", name, cv.Version, base)
	}
	archive, err := r.archiveURL(base, cv.URLs[0])
	if err != nil {
		return nil, err
	}
	tgz, err := r.get(ctx, archive, maxChartArchiveBytes)
	if err != nil {
		return nil, err
	}
	files, err := untarChart(tgz)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", archive, err)
	}
	return files, nil
}

// archiveURL resolves an index's chart URL against the repository: it
// must stay on the repository's host (or be in another allowed one).
func (r *ChartRepos) archiveURL(base, ref string) (string, error) {
	b, _ := url.Parse(base + "/")
	u, err := b.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("the chart URL %q in %s/index.yaml: %w", ref, base, err)
	}
	if !strings.EqualFold(u.Host, b.Host) || u.Scheme != b.Scheme {
		ok := false
		for _, a := range r.allowed {
			if strings.HasPrefix(u.String(), a+"/") {
				ok = true
			}
		}
		if !ok {
			return "", fmt.Errorf("the chart URL %q in %s/index.yaml is on another host, which the server does not allow", ref, base)
		}
	}
	return u.String(), nil
}

// get fetches u, at most max bytes, following redirects on the same host only.
func (r *ChartRepos) get(ctx context.Context, u string, max int64) ([]byte, error) {
	c := http.Client{Timeout: chartFetchTimeout}
	if r.Client != nil {
		c = *r.Client
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 || !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
			return fmt.Errorf("redirected to %s: porchbot follows redirects on the repository's host only", req.URL.Redacted())
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", u, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("fetching %s: larger than %d bytes", u, max)
	}
	return b, nil
}

// untarChart reads a chart archive into the chart's files (the archive's
// top directory cut), bounded in files and bytes.
func untarChart(tgz []byte) ([]*loader.BufferedFile, error) {
	zr, err := gzip.NewReader(strings.NewReader(string(tgz)))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	var files []*loader.BufferedFile
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		parts := strings.SplitN(path.Clean(h.Name), "/", 2)
		if len(parts) < 2 || strings.HasPrefix(parts[1], "../") {
			continue
		}
		if len(files) == maxChartFiles {
			return nil, fmt.Errorf("more than %d files", maxChartFiles)
		}
		if total += h.Size; total > maxChartBytes {
			return nil, fmt.Errorf("more than %d bytes uncompressed", maxChartBytes)
		}
		b, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return nil, err
		}
		files = append(files, &loader.BufferedFile{Name: parts[1], Data: b})
	}
	return files, nil
}
