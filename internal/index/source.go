package index

import (
	"context"
	"time"
)

// Tag is one published revision as the repository's tags give it.
type Tag struct {
	Package  string
	Revision int
	Commit   string    // the commit the tag points at (peeled)
	Time     time.Time // the annotated tag's date, else the commit's committer date
}

// Source is one repository as the index reads it.
type Source interface {
	// Tags lists every tag <package>/v<N>.
	Tags(ctx context.Context) ([]Tag, error)
	// Tree is the package directory's files at commit (paths relative to
	// the directory). A directory that does not exist there gives an
	// empty map, not an error.
	Tree(ctx context.Context, commit, dir string) (map[string][]byte, error)
}
