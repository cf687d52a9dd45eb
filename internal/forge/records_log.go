package forge

// appendNewest appends items to a repository's log (issue events,
// activities), each given a fresh id by setID, and keeps the newest max.
// Call it holding repo.mu.
func appendNewest[T any](f *Forge, log []*T, items []T, setID func(*T, int64), max int) []*T {
	for i := range items {
		it := items[i]
		setID(&it, f.newID())
		log = append(log, &it)
	}
	if len(log) > max {
		log = log[len(log)-max:]
	}
	return log
}
