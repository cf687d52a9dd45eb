package updates

import (
	"context"
	"fmt"

	git "github.com/go-git/go-git/v5"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/downstreams"
)

// maxDownstreamKptfileBytes bounds one Kptfile read for downstream
// discovery.
const maxDownstreamKptfileBytes = 1 << 20

// DeploymentDownstreams lists the packages at the session's deployment
// head whose Kptfile names a git upstream (downstreams.FromTree). A Kptfile
// that cannot be read or parsed is left out and reported in the error,
// beside the packages that could be read (a non-nil slice); a nil slice
// means the tree itself could not be read.
func DeploymentDownstreams(ctx context.Context, s *core.Session) ([]downstreams.Downstream, error) {
	if s.DeploymentHead.IsZero() {
		return nil, nil // an empty repository
	}
	paths, err := proposals.TreeFilePaths(ctx, s.Git, s.DeploymentHead)
	if err != nil {
		return nil, err
	}
	var out []downstreams.Downstream
	var found error
	err = s.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(s.DeploymentHead)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", s.DeploymentHead, err)
		}
		t, err := c.Tree()
		if err != nil {
			return fmt.Errorf("read tree of %s: %w", s.DeploymentHead, err)
		}
		read := func(p string) ([]byte, error) {
			f, err := t.File(p)
			if err != nil {
				return nil, err
			}
			if f.Size > maxDownstreamKptfileBytes {
				return nil, fmt.Errorf("%d bytes, more than %d", f.Size, maxDownstreamKptfileBytes)
			}
			c, err := f.Contents()
			return []byte(c), err
		}
		out, found = downstreams.FromTree(s.Repo.FullName(), s.Repo.InstallationID, paths, s.Config.Packages.Root, read)
		if out == nil {
			out = []downstreams.Downstream{} // non-nil: the tree was read
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, found
}
