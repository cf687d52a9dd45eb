package gitstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TagRequest is an annotated tag object to write into the cache.
type TagRequest struct {
	// Name is the tag's name (without refs/tags/).
	Name string
	// Target is the commit tagged.
	Target plumbing.Hash
	// Tagger; a zero When means now.
	Tagger  object.Signature
	Message string
}

// WriteTag writes the annotated tag object of req into the cache and
// returns it; no ref is moved: Push publishes it (its old value ZeroHash
// makes the creation of the tag ref a compare-and-swap).
func (c *Cache) WriteTag(ctx context.Context, req TagRequest) (plumbing.Hash, error) {
	fail := func(err error) (plumbing.Hash, error) {
		return plumbing.ZeroHash, fmt.Errorf("gitstore: tag %s in %s: %w", req.Name, c.loc.name, err)
	}
	tagger, _, err := signatures(req.Tagger, object.Signature{})
	if err != nil {
		return fail(err)
	}
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer release()
	if _, err := object.GetCommit(repo.Storer, req.Target); err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return fail(fmt.Errorf("commit %s %w in the cache (fetch first?)", req.Target, ErrNotFound))
		}
		return fail(err)
	}
	t := &object.Tag{Name: req.Name, Tagger: tagger, Message: endLine(req.Message), TargetType: plumbing.CommitObject, Target: req.Target}
	h, err := storeObject(repo.Storer, t)
	if err != nil {
		return fail(err)
	}
	return h, nil
}
