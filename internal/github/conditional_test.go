package github

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// etagServer answers GETs with an ETag of its current body per path, 304
// to a matching If-None-Match, and counts what it answered.
type etagServer struct {
	mu     sync.Mutex
	bodies map[string]string
	got    []string // "200 /path" or "304 /path"
}

func (e *etagServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	body, ok := e.bodies[r.URL.Path]
	if !ok {
		e.got = append(e.got, "404 "+r.URL.Path)
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, len(body)*31+int(body[0]))
	w.Header().Set("ETag", etag)
	w.Header().Set("X-RateLimit-Remaining", "4999")
	if r.Header.Get("If-None-Match") == etag {
		e.got = append(e.got, "304 "+r.URL.Path)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	e.got = append(e.got, "200 "+r.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Link", `<`+r.URL.Path+`?page=2>; rel="next"`)
	_, _ = io.WriteString(w, body)
}

func (e *etagServer) answers() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := strings.Join(e.got, ",")
	e.got = nil
	return out
}

func getBody(t *testing.T, rt http.RoundTripper, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestConditionalCacheRevalidates: a repeated GET carries the ETag, a 304
// is handed to the caller as the kept 200 (body, Link, fresh rate-limit
// headers), a changed answer replaces the kept one, callers (scopes) never
// share answers, and writes and 404s pass through.
func TestConditionalCacheRevalidates(t *testing.T) {
	es := &etagServer{bodies: map[string]string{"/a": `["a"]`, "/b": `["b"]`}}
	srv := httptest.NewServer(es)
	defer srv.Close()
	c := NewConditionalCache(0)
	one, two := c.Transport("installation:1", http.DefaultTransport), c.Transport("installation:2", http.DefaultTransport)

	if _, body := getBody(t, one, srv.URL+"/a"); body != `["a"]` {
		t.Fatalf("first: %q", body)
	}
	resp, body := getBody(t, one, srv.URL+"/a")
	if body != `["a"]` || resp.StatusCode != http.StatusOK || resp.Header.Get(CacheHeader) != "revalidated" ||
		!strings.Contains(resp.Header.Get("Link"), "page=2") || resp.Header.Get("X-RateLimit-Remaining") != "4999" {
		t.Fatalf("revalidated: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if got := es.answers(); got != "200 /a,304 /a" {
		t.Fatalf("answers %s", got)
	}
	// Another caller asks afresh.
	getBody(t, two, srv.URL+"/a")
	if got := es.answers(); got != "200 /a" {
		t.Fatalf("another scope: %s", got)
	}
	// A change is seen.
	es.mu.Lock()
	es.bodies["/a"] = `["a","new"]`
	es.mu.Unlock()
	if _, body := getBody(t, one, srv.URL+"/a"); body != `["a","new"]` {
		t.Fatalf("after a change: %q", body)
	}
	if got := es.answers(); got != "200 /a" {
		t.Fatalf("after a change: %s", got)
	}
	// Gone: the 404 goes through and the kept answer is dropped.
	es.mu.Lock()
	delete(es.bodies, "/a")
	es.mu.Unlock()
	if resp, _ := getBody(t, one, srv.URL+"/a"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("gone: %d", resp.StatusCode)
	}
	if st := c.Stats(); st.Entries != 1 || st.NotModified != 1 {
		t.Fatalf("stats %+v", st)
	}
	// Writes are not touched.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/b", strings.NewReader("{}"))
	if resp, err := one.RoundTrip(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if st := c.Stats(); st.Requests != 5 {
		t.Fatalf("a POST went through the cache: %+v", st)
	}
}

// TestConditionalCacheBounds: the least recently used answers leave first
// when the bytes are spent, and an answer larger than one entry may be is
// passed on whole and not kept.
func TestConditionalCacheBounds(t *testing.T) {
	big := `["` + strings.Repeat("x", maxConditionalEntry) + `"]`
	es := &etagServer{bodies: map[string]string{"/a": `["a"]`, "/b": `["b"]`, "/big": big}}
	srv := httptest.NewServer(es)
	defer srv.Close()
	c := NewConditionalCache(2 * (conditionalEntryOverhead + 100))
	rt := c.Transport("app", http.DefaultTransport)
	if _, body := getBody(t, rt, srv.URL+"/big"); body != big {
		t.Fatal("a large answer was cut")
	}
	getBody(t, rt, srv.URL+"/big")
	if got := es.answers(); got != "200 /big,200 /big" {
		t.Fatalf("a large answer was kept: %s", got)
	}
	getBody(t, rt, srv.URL+"/a")
	getBody(t, rt, srv.URL+"/b")
	getBody(t, rt, srv.URL+"/a") // /a is now the most recent
	es.answers()
	c3 := srv.URL + "/c"
	es.mu.Lock()
	es.bodies["/c"] = `["c"]`
	es.mu.Unlock()
	getBody(t, rt, c3) // evicts /b
	getBody(t, rt, srv.URL+"/a")
	getBody(t, rt, srv.URL+"/b")
	if got := es.answers(); got != "200 /c,304 /a,200 /b" {
		t.Fatalf("eviction order: %s", got)
	}
	if st := c.Stats(); st.Bytes > 2*(conditionalEntryOverhead+100) || st.Entries != 2 {
		t.Fatalf("bound: %+v", st)
	}
}
