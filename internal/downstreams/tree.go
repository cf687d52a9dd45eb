package downstreams

import (
	"errors"
	"fmt"
	"path"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
)

// FromTree lists the packages of a repository's deployment-branch tree
// whose Kptfile names a git upstream. paths are every file path of the tree
// (as git lists them), root the repository's packages.root, read returns a
// file's content. Subpackages count: kpt can fetch one on its own. A Kptfile
// that cannot be read or parsed is skipped and its error returned joined
// with the others, beside the packages that could be read.
func FromTree(repo string, installationID int64, paths []string, root string,
	read func(path string) ([]byte, error)) ([]Downstream, error) {
	var out []Downstream
	var errs []error
	for _, p := range packages.Discover(paths, root) {
		file := path.Join(p.Dir, kptfile.FileName)
		data, err := read(file)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		}
		kf, err := kptfile.ParseFile(file, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		k := kf.Kptfile()
		if k.Upstream == nil || k.Upstream.Git == nil || k.Upstream.Git.Repo == "" {
			continue
		}
		d := Downstream{Repo: repo, Package: p.Name, Dir: p.Dir, Upstream: *k.Upstream.Git,
			Strategy: k.Upstream.UpdateStrategy, InstallationID: installationID, Labels: k.Metadata.Labels}
		if k.UpstreamLock != nil && k.UpstreamLock.Git != nil {
			lock := *k.UpstreamLock.Git
			d.Lock = &lock
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}
