package gitstore

import "container/list"

// DefaultMaxOpen bounds the repositories a Store keeps open at once. An
// open repository holds its packfile indexes, file handles and a decoded
// object cache (up to objectCacheSize); a fleet of thousands of
// repositories must not hold them all between resync passes. The least
// recently used idle repository is closed past the bound and reopened by
// its next operation (an open costs a few file reads, no network).
const DefaultMaxOpen = 64

// openSet is the Store's list of open repositories, most recently used
// first. Guarded by Store.mu.
type openSet struct {
	lru   list.List // *repoEntry
	where map[*repoEntry]*list.Element
}

// used records that e (open, its lock held by the caller) was just used,
// and closes the least recently used idle repositories beyond max. Idle:
// their lock is free; a busy one is left open for now.
func (s *Store) used(e *repoEntry) {
	max := s.opts.MaxOpen
	if max <= 0 {
		max = DefaultMaxOpen
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open.where == nil {
		s.open.where = map[*repoEntry]*list.Element{}
	}
	if el, ok := s.open.where[e]; ok {
		s.open.lru.MoveToFront(el)
	} else {
		s.open.where[e] = s.open.lru.PushFront(e)
	}
	for el := s.open.lru.Back(); el != nil && s.open.lru.Len() > max; {
		prev := el.Prev()
		old := el.Value.(*repoEntry)
		if old != e && old.tryLock() {
			old.release(s.log)
			old.unlock()
			s.open.lru.Remove(el)
			delete(s.open.where, old)
		}
		el = prev
	}
}

// tryLock takes the repository lock if it is free.
func (e *repoEntry) tryLock() bool {
	select {
	case e.sem <- struct{}{}:
		return true
	default:
		return false
	}
}
