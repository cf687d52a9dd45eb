package revrecord

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// Tag is one <package>/v<N> tag as git holds it.
type Tag struct {
	Package  string
	Revision int
	// Commit is the commit the tag names (peeled).
	Commit plumbing.Hash
	// Object is the ref's value: the tag object, or the commit of a
	// lightweight tag (the lease when porchbot adopts it).
	Object plumbing.Hash
}

// IsRevision says whether the tag ref is a revision porchbot published in
// repo: an annotated tag whose target is a commit and whose message
// carries a record signed under key for this repository, package,
// revision and commit. It is the one test every reader of tags uses. ok is
// false for a ref that is not a <package>/v<N> tag naming a commit at all;
// otherwise err says why the tag is not porchbot's (nil: it is, with rec).
func IsRevision(s storer.EncodedObjectStorer, key []byte, repo string, ref *plumbing.Reference) (t Tag, rec Record, ok bool, err error) {
	if ref.Type() != plumbing.HashReference || !ref.Name().IsTag() {
		return Tag{}, Record{}, false, nil
	}
	pkg, n, isRev := packages.ParseTag(ref.Name().String())
	if !isRev {
		return Tag{}, Record{}, false, nil
	}
	t = Tag{Package: pkg, Revision: n, Object: ref.Hash()}
	obj, err := s.EncodedObject(plumbing.AnyObject, ref.Hash())
	if err != nil {
		return t, Record{}, false, nil // not in the cache: nothing to derive from
	}
	switch obj.Type() {
	case plumbing.CommitObject:
		t.Commit = ref.Hash()
		return t, Record{}, true, ErrLightweight
	case plumbing.TagObject:
	default:
		return t, Record{}, false, nil // a tag of something that is not a commit is no revision
	}
	to, err := object.DecodeTag(s, obj)
	if err != nil {
		return t, Record{}, false, nil
	}
	if to.TargetType != plumbing.CommitObject {
		// a tag of a tag: peel it for the report, never a revision
		c, perr := gitstore.PeelToCommit(s, to.Target)
		if perr != nil {
			return t, Record{}, false, nil
		}
		t.Commit = c
		return t, Record{}, true, fmt.Errorf("%w: a tag of a tag", ErrNoRecord)
	}
	if _, err := s.EncodedObject(plumbing.CommitObject, to.Target); err != nil {
		return t, Record{}, false, nil
	}
	t.Commit = to.Target
	rec, err = Verify(key, to.Message, repo, pkg, n, to.Target.String())
	return t, rec, true, err
}
