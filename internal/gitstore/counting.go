package gitstore

import (
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// readCounts are the Store's counts of reads from its caches (Stats).
type readCounts struct {
	objects, refs atomic.Int64
}

// countingStorage is a cache's storage that counts the objects and
// references read through it: what one event costs the git cache
// (BenchmarkLifecycleAPICalls reports it per step). Every other method,
// and every optional interface go-git asks of a storage (packfile writer,
// loose objects), is the filesystem storage's.
type countingStorage struct {
	*filesystem.Storage
	reads *readCounts
}

// EncodedObject counts an object read by id.
func (s countingStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if s.reads != nil {
		s.reads.objects.Add(1)
	}
	return s.Storage.EncodedObject(t, h)
}

// Reference counts a reference read by name.
func (s countingStorage) Reference(name plumbing.ReferenceName) (*plumbing.Reference, error) {
	if s.reads != nil {
		s.reads.refs.Add(1)
	}
	return s.Storage.Reference(name)
}
