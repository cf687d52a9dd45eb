package core

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
)

// Bounds of the walk back to the last good configuration: commits looked
// at, and distinct versions of the file parsed.
const (
	configHistoryCommits  = 1000
	configHistoryVersions = 20
)

// lastGoodConfig walks the first-parent history of a branch back from head,
// whose .github/porchbot.yaml is broken, to the newest commit whose version
// of the file passes config.Parse (a commit without the file: the
// defaults). It returns that configuration and commit; the defaults and the
// zero hash when no version passes within the bounds. First parents only:
// the states the branch itself was in, not those of merged branches.
func (s *Session) lastGoodConfig(ctx context.Context, head plumbing.Hash, limits config.ServerLimits) (*config.Config, plumbing.Hash, error) {
	versions, err := s.configVersions(ctx, head)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	// Parsed outside the cache's lock: a version may extend presets of
	// the organisation's .github repository, which may be this one.
	for _, v := range versions {
		if v.data == nil {
			return config.DefaultFor(limits), v.at, nil
		}
		if good, _, perr := s.ParseConfig(ctx, v.data, limits); perr == nil {
			return good, v.at, nil
		}
	}
	return config.DefaultFor(limits), plumbing.ZeroHash, nil
}

// configVersion is one version of the file in a branch's history: the
// newest commit holding it, and its content (nil: the file is absent).
type configVersion struct {
	at   plumbing.Hash
	data []byte
}

// configVersions walks the first-parent history back from head and lists
// the distinct versions of the file, newest first, up to the first commit
// without it, within the bounds.
func (s *Session) configVersions(ctx context.Context, head plumbing.Hash) ([]configVersion, error) {
	var out []configVersion
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(head)
		if err != nil {
			return fmt.Errorf("commit %s: %w", head, err)
		}
		seen := map[plumbing.Hash]bool{}
		if f, err := c.File(config.Path); err == nil {
			seen[f.Hash] = true
		}
		for i := 0; i < configHistoryCommits && c.NumParents() > 0; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if c, err = repo.CommitObject(c.ParentHashes[0]); err != nil {
				return fmt.Errorf("parent %d of %s: %w", i+1, head, err)
			}
			f, err := c.File(config.Path)
			if errors.Is(err, object.ErrFileNotFound) {
				out = append(out, configVersion{at: c.Hash})
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s at %s: %w", config.Path, c.Hash, err)
			}
			if seen[f.Hash] {
				continue
			}
			if seen[f.Hash] = true; len(seen) > configHistoryVersions {
				return nil
			}
			if f.Size > int64(config.Limits.MaxBytes) {
				continue
			}
			data, err := BlobBytes(f)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", config.Path, c.Hash, err)
			}
			out = append(out, configVersion{at: c.Hash, data: data})
		}
		return nil
	})
	return out, err
}

// BlobBytes reads a file's content.
func BlobBytes(f *object.File) ([]byte, error) {
	r, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// ConfigVersion says which version of the repository configuration is in
// force, for check runs and logs.
func (s *Session) ConfigVersion() string {
	switch {
	case s.ConfigInForce.IsZero() && s.ConfigErr != nil:
		return fmt.Sprintf("the defaults (no valid version of %s in the history of %s, looking back up to %d commits and %d versions)",
			mdquote.Code(config.Path), mdquote.Code(s.DeploymentBranch), configHistoryCommits, configHistoryVersions)
	case s.ConfigInForce.IsZero():
		return "the defaults"
	default:
		return fmt.Sprintf("%s as of %s", mdquote.Code(config.Path), s.ConfigInForce)
	}
}
