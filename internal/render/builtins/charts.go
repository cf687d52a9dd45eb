package builtins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"
)

// ChartSources are where render-helm-chart may read Helm charts from: the
// package it runs in, and the chart repositories the server's allowlist
// names. A chart path in a functionConfig is relative to the package and
// stays inside it; nothing else a package names is fetched.
type ChartSources struct {
	// Package reads the package's files (nil: none).
	Package *PackageFiles
	// Repos fetches charts from the allowlisted repositories (nil: none).
	Repos *ChartRepos
	// Template templates a chart (a job RunHelmJob runs) where the chart
	// author's templates cannot hurt the server: the render engine's
	// sandbox (nil: in process).
	Template func(job []byte) ([]byte, error)
}

// PackageFiles reads the files of the package a function runs in, by
// slash-separated paths relative to the package directory.
type PackageFiles struct {
	// Read reads one file: fs.ErrNotExist when there is none.
	Read func(rel string) ([]byte, error)
	// List lists the files under a directory, recursively, as paths
	// relative to the package: fs.ErrNotExist when rel is no directory.
	List func(rel string) ([]string, error)
}

// DirFiles reads the files under dir on disk as a package's (relative
// paths that stay inside it only).
func DirFiles(dir string) *PackageFiles {
	local := func(rel string) (string, error) {
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return "", fs.ErrNotExist
		}
		return filepath.Join(dir, filepath.FromSlash(rel)), nil
	}
	return &PackageFiles{
		Read: func(rel string) ([]byte, error) {
			p, err := local(rel)
			if err != nil {
				return nil, err
			}
			return os.ReadFile(p)
		},
		List: func(rel string) ([]string, error) {
			root, err := local(rel)
			if err != nil {
				return nil, err
			}
			if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
				return nil, fs.ErrNotExist
			}
			var out []string
			err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				sub, err := filepath.Rel(dir, p)
				out = append(out, filepath.ToSlash(sub))
				return err
			})
			return out, err
		},
	}
}

// ChartUser is implemented by the built-ins that read charts; the render
// engine tells them where from before they run.
type ChartUser interface {
	UseCharts(ChartSources)
}

// Bounds on a chart porchbot reads, from the package or a repository.
const (
	maxChartFiles = 1000
	maxChartBytes = 16 << 20 // the chart's files, uncompressed
)

// packageRel turns a path a functionConfig names into a path inside the
// package, or fails saying why porchbot does not read it.
func packageRel(p, what string) (string, error) {
	rel := path.Clean(strings.TrimPrefix(p, "./"))
	if strings.Contains(p, "://") || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", errNotInPackage(what, p)
	}
	return rel, nil
}

// errNotInPackage refuses a path a functionConfig names.
func errNotInPackage(what, p string) error {
	return fmt.Errorf("the %s %q is not a path inside the package: porchbot reads charts and values files "+
		"only from the package (a relative path) and from the chart repositories the server allows", what, p)
}

// loadPackageChart reads the chart directory dir of the package into
// Helm's files, bounded and with the chart's .helmignore applied, as
// `helm template` loads a chart directory. ok is false when dir is no
// directory of the package.
func loadPackageChart(pf *PackageFiles, dir string) (files []*loader.BufferedFile, ok bool, err error) {
	if pf == nil {
		return nil, false, nil
	}
	names, err := pf.List(dir)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("reading the chart %s: %w", dir, err)
	}
	rules := ignore.Empty()
	if b, err := pf.Read(path.Join(dir, ignore.HelmIgnore)); err == nil {
		if rules, err = ignore.Parse(strings.NewReader(string(b))); err != nil {
			return nil, true, fmt.Errorf("reading %s: %w", path.Join(dir, ignore.HelmIgnore), err)
		}
	}
	rules.AddDefaults()
	var total int
	for _, name := range names {
		rel := strings.TrimPrefix(name, dir+"/")
		if ignoredChartFile(rules, rel) {
			continue
		}
		if len(files) == maxChartFiles {
			return nil, true, fmt.Errorf("the chart %s has more than %d files", dir, maxChartFiles)
		}
		b, err := pf.Read(name)
		if err != nil {
			return nil, true, fmt.Errorf("reading the chart %s: %w", dir, err)
		}
		if total += len(b); total > maxChartBytes {
			return nil, true, fmt.Errorf("the chart %s holds more than %d bytes", dir, maxChartBytes)
		}
		files = append(files, &loader.BufferedFile{Name: rel, Data: b})
	}
	return files, true, nil
}

// ignoredChartFile applies .helmignore to a file and each directory above
// it, as Helm's directory walk does.
func ignoredChartFile(rules *ignore.Rules, rel string) bool {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if rules.Ignore(p, fakeFileInfo{name: parts[i], dir: i < len(parts)-1}) {
			return true
		}
	}
	return false
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// fakeFileInfo is what .helmignore rules look at of a file: its name and
// whether it is a directory.
type fakeFileInfo struct {
	name string
	dir  bool
}

func (f fakeFileInfo) Name() string       { return f.name }
func (f fakeFileInfo) Size() int64        { return 0 }
func (f fakeFileInfo) Mode() fs.FileMode  { return map[bool]fs.FileMode{true: fs.ModeDir}[f.dir] }
func (f fakeFileInfo) ModTime() time.Time { return time.Time{} }
func (f fakeFileInfo) IsDir() bool        { return f.dir }
func (f fakeFileInfo) Sys() any           { return nil }
