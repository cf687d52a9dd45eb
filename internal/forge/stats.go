package forge

import (
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Stats counts the calls the forge answered, per endpoint: the key is the
// method and the route template, e.g. "GET /repos/{owner}/{repo}/pulls",
// and "GIT receive-pack" / "GIT upload-pack" for git transport. Calls
// answered 304 are also counted under "<key> 304" (GitHub does not charge
// them against the rate limit).
type Stats struct {
	mu     sync.Mutex
	counts map[string]int64
}

func newStats() *Stats { return &Stats{counts: map[string]int64{}} }

func (s *Stats) add(key string) {
	s.mu.Lock()
	s.counts[key]++
	s.mu.Unlock()
}

// Snapshot returns a copy of the counts.
func (s *Stats) Snapshot() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// Reset clears the counts.
func (s *Stats) Reset() {
	s.mu.Lock()
	s.counts = map[string]int64{}
	s.mu.Unlock()
}

// Stats is the forge's call counter.
func (f *Forge) Stats() *Stats { return f.stats }

// StatsDelta is after minus before, keeping non-zero entries.
func StatsDelta(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// SumREST adds up the REST calls of a snapshot (git transport and the
// forge's own control endpoints excluded), answered 304 or not.
func SumREST(counts map[string]int64) int64 {
	var n int64
	for k, v := range counts {
		if strings.HasPrefix(k, "GIT ") || isControlKey(k) || strings.HasSuffix(k, notModifiedSuffix) {
			continue
		}
		n += v
	}
	return n
}

// SumNotModified adds up the REST calls of a snapshot answered 304.
func SumNotModified(counts map[string]int64) int64 {
	var n int64
	for k, v := range counts {
		if strings.HasSuffix(k, notModifiedSuffix) && !isControlKey(k) {
			n += v
		}
	}
	return n
}

// SumCounted is what GitHub would charge against the rate limit: the REST
// calls of a snapshot less those answered 304.
func SumCounted(counts map[string]int64) int64 {
	return SumREST(counts) - SumNotModified(counts)
}

// Counted is a snapshot (or delta) as GitHub charges it: each route's
// calls less those answered 304, without the 304 counts; routes left at
// zero are dropped.
func Counted(counts map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(counts))
	for k, v := range counts {
		if !strings.HasSuffix(k, notModifiedSuffix) {
			out[k] += v
			continue
		}
		out[strings.TrimSuffix(k, notModifiedSuffix)] -= v
	}
	for k, v := range out {
		if v == 0 {
			delete(out, k)
		}
	}
	return out
}

// notModifiedSuffix marks the count of a route's calls answered 304.
const notModifiedSuffix = " 304"

func isControlKey(k string) bool {
	for i := 0; i+8 <= len(k); i++ {
		if k[i:i+8] == "/_forge/" {
			return true
		}
	}
	return false
}

// statsResponse is GET /_forge/stats: counts and sorted keys.
type statsResponse struct {
	Calls map[string]int64 `json:"calls"`
	Keys  []string         `json:"keys"`
}

func (f *Forge) handleStats(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		f.stats.Reset()
		noContent(w)
		return
	}
	snap := f.stats.Snapshot()
	keys := make([]string, 0, len(snap))
	for k := range snap {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	writeRaw(w, http.StatusOK, statsResponse{Calls: snap, Keys: keys})
}
