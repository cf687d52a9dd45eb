package core

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
)

// orgPresets reads the organisation presets a configuration extends
// (config.PresetReader) from the repository owner's .github repository:
// its default branch (one repository call, answered 304 and free once
// the conditional cache has it) fetched into the git cache, read once per
// session. Only the session's own owner's repository is ever read.
type orgPresets struct {
	owner string
	hub   interface {
		GetRepository(ctx context.Context, owner, repo string) (hub.Repository, error)
	}
	fetch func(ctx context.Context, branch string) (*gitstore.Cache, error)

	done  bool
	err   error
	cache *gitstore.Cache
	head  plumbing.Hash
	files map[string][]byte // read so far (nil content: absent)
}

// reader is the PresetReader of the session's configuration reads.
func (p *orgPresets) reader(ctx context.Context) config.PresetReader {
	return func(name string) (string, []byte, bool, error) {
		file := "porchbot.yaml"
		if name != "" {
			file = path.Join("porchbot", name+".yaml")
		}
		filename := p.owner + "/" + config.OrgRepository + ": " + file
		if err := p.open(ctx); err != nil {
			return filename, nil, false, err
		}
		if data, ok := p.files[file]; ok {
			return filename, data, data != nil, nil
		}
		data, ok, err := p.cache.ReadFile(ctx, p.head, file)
		if errors.Is(err, gitstore.ErrNotFound) {
			data, ok, err = nil, false, nil // no such directory
		}
		if err != nil {
			return filename, nil, false, fmt.Errorf("read %s: %w", filename, err)
		}
		if !ok {
			data = nil
		}
		p.files[file] = data
		return filename, data, ok, nil
	}
}

// open fetches the .github repository's default branch, once.
func (p *orgPresets) open(ctx context.Context) error {
	if p.done {
		return p.err
	}
	p.done, p.files = true, map[string][]byte{}
	repo := p.owner + "/" + config.OrgRepository
	r, err := p.hub.GetRepository(ctx, p.owner, config.OrgRepository)
	if err != nil {
		if hub.IsNotFound(err) {
			p.err = fmt.Errorf("porchbot cannot read %s: it does not exist, or the App is not installed on it", repo)
		} else {
			p.err = fmt.Errorf("read %s: %w", repo, err)
		}
		return p.err
	}
	cache, err := p.fetch(ctx, r.DefaultBranch)
	if err != nil {
		p.err = fmt.Errorf("fetch %s: %w", repo, err)
		return p.err
	}
	head, err := cache.ResolveRef(ctx, "refs/remotes/origin/"+r.DefaultBranch)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) {
			p.err = fmt.Errorf("%s has no commit on %s", repo, r.DefaultBranch)
		} else {
			p.err = fmt.Errorf("%s: %w", repo, err)
		}
		return p.err
	}
	p.cache, p.head = cache, head
	return nil
}

// ParseConfig parses a version of the repository's configuration file
// with the presets it extends, the organisation's read from the owner's
// .github repository.
func (s *Session) ParseConfig(ctx context.Context, data []byte, limits config.ServerLimits) (*config.Config, config.Provenance, error) {
	var org config.PresetReader
	if s.presets != nil {
		org = s.presets.reader(ctx)
	}
	return config.ParseChain(config.Path, data, limits, org)
}

// OrgPreset says whether the owner's .github repository has its
// porchbot.yaml, and its name; an error is a repository porchbot cannot
// read.
func (s *Session) OrgPreset(ctx context.Context) (string, bool, error) {
	if s.presets == nil {
		return "", false, nil
	}
	name, _, found, err := s.presets.reader(ctx)("")
	return name, found, err
}
