package forge

import (
	"net/http"
	"sort"
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
// forge's own control endpoints excluded).
func SumREST(counts map[string]int64) int64 {
	var n int64
	for k, v := range counts {
		if len(k) > 4 && k[:4] == "GIT " || isControlKey(k) {
			continue
		}
		n += v
	}
	return n
}

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
