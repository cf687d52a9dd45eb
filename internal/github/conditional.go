package github

import (
	"bytes"
	"container/list"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Conditional requests: GitHub answers a GET whose If-None-Match names the
// current ETag with 304 Not Modified, and a 304 does not count against the
// rate limit. ConditionalCache keeps the last answer of each GET a client
// made, per caller, and revalidates it: a listing that did not change costs
// nothing. An answer is never served without GitHub's 304 for it.

// Conditional-cache defaults.
const (
	// DefaultConditionalBytes bounds a cache's bodies (least recently used
	// first out).
	DefaultConditionalBytes = 64 << 20
	// maxConditionalEntry is the largest body kept: a larger answer is
	// passed on and fetched in full again next time.
	maxConditionalEntry = 256 << 10
	// conditionalEntryOverhead is what an entry costs beyond its key and
	// body (map slot, list element, headers kept), for the bound.
	conditionalEntryOverhead = 256
)

// CacheHeader is set on an answer served from a ConditionalCache after a
// 304 ("revalidated").
const CacheHeader = "X-Porchbot-Cache"

// ConditionalCache is a bounded store of GET answers with ETags, shared by
// the clients of one Clients; safe for concurrent use.
type ConditionalCache struct {
	mu       sync.Mutex
	max      int64
	size     int64
	entries  map[string]*list.Element
	lru      list.List // front: most recently used *conditionalEntry
	hits     int64
	requests int64
}

type conditionalEntry struct {
	key         string
	etag        string
	contentType string
	link        string
	body        []byte
}

func (e *conditionalEntry) cost() int64 {
	return int64(len(e.key)+len(e.etag)+len(e.contentType)+len(e.link)+len(e.body)) + conditionalEntryOverhead
}

// NewConditionalCache keeps up to maxBytes of answers (≤ 0: the default).
func NewConditionalCache(maxBytes int64) *ConditionalCache {
	if maxBytes <= 0 {
		maxBytes = DefaultConditionalBytes
	}
	return &ConditionalCache{max: maxBytes, entries: map[string]*list.Element{}}
}

// ConditionalStats are a cache's figures.
type ConditionalStats struct {
	Entries int
	Bytes   int64
	// Requests are the GETs it revalidated; NotModified those GitHub
	// answered 304.
	Requests, NotModified int64
}

// Stats reads the cache's figures.
func (c *ConditionalCache) Stats() ConditionalStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ConditionalStats{Entries: len(c.entries), Bytes: c.size, Requests: c.requests, NotModified: c.hits}
}

// Transport revalidates the GETs of one caller (scope names it: answers
// are never shared between callers, who may see different things) through
// next.
func (c *ConditionalCache) Transport(scope string, next http.RoundTripper) http.RoundTripper {
	return conditionalTransport{cache: c, scope: scope, next: next}
}

type conditionalTransport struct {
	cache *ConditionalCache
	scope string
	next  http.RoundTripper
}

func (t conditionalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("If-None-Match") != "" || req.Header.Get("If-Modified-Since") != "" ||
		req.Header.Get("Range") != "" {
		return t.next.RoundTrip(req)
	}
	key := t.scope + "\x00" + req.Header.Get("Accept") + "\x00" + req.URL.String()
	prev := t.cache.get(key)
	out := req
	if prev != nil {
		out = req.Clone(req.Context())
		out.Header.Set("If-None-Match", prev.etag)
	}
	resp, err := t.next.RoundTrip(out)
	if err != nil {
		return resp, err
	}
	t.cache.count(resp.StatusCode == http.StatusNotModified && prev != nil)
	switch {
	case resp.StatusCode == http.StatusNotModified && prev != nil:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		return prev.response(req, resp), nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		return t.cache.keep(key, resp), nil
	default:
		if prev != nil {
			t.cache.drop(key)
		}
		return resp, nil
	}
}

// response is the kept answer, with the fresh answer's headers (rate
// limit, date) under the kept ones that describe the body.
func (e *conditionalEntry) response(req *http.Request, fresh *http.Response) *http.Response {
	h := fresh.Header.Clone()
	h.Set("ETag", e.etag)
	if e.contentType != "" {
		h.Set("Content-Type", e.contentType)
	}
	if e.link != "" {
		h.Set("Link", e.link)
	}
	h.Set(CacheHeader, "revalidated")
	h.Del("Content-Length")
	return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: fresh.Proto, ProtoMajor: fresh.ProtoMajor,
		ProtoMinor: fresh.ProtoMinor, Header: h, Body: io.NopCloser(bytes.NewReader(e.body)),
		ContentLength: int64(len(e.body)), Request: req}
}

// keep stores a 200 answer small enough to keep and hands back a response
// reading the same bytes.
func (c *ConditionalCache) keep(key string, resp *http.Response) *http.Response {
	if resp.ContentLength > maxConditionalEntry || strings.Contains(resp.Header.Get("Cache-Control"), "no-store") {
		c.drop(key)
		return resp
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxConditionalEntry+1))
	if err != nil || len(head) > maxConditionalEntry {
		// Too large (or broken): the caller reads what was read and the rest.
		c.drop(key)
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return resp
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(head))
	c.put(&conditionalEntry{key: key, etag: resp.Header.Get("ETag"), contentType: resp.Header.Get("Content-Type"),
		link: resp.Header.Get("Link"), body: head})
	return resp
}

type readCloser struct {
	io.Reader
	io.Closer
}

func (c *ConditionalCache) get(key string) *conditionalEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*conditionalEntry)
}

func (c *ConditionalCache) count(notModified bool) {
	c.mu.Lock()
	c.requests++
	if notModified {
		c.hits++
	}
	c.mu.Unlock()
}

func (c *ConditionalCache) put(e *conditionalEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(e.key)
	if e.cost() > c.max {
		return
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.size += e.cost()
	for c.size > c.max {
		c.removeLocked(c.lru.Back().Value.(*conditionalEntry).key)
	}
}

func (c *ConditionalCache) drop(key string) {
	c.mu.Lock()
	c.removeLocked(key)
	c.mu.Unlock()
}

func (c *ConditionalCache) removeLocked(key string) {
	el, ok := c.entries[key]
	if !ok {
		return
	}
	c.lru.Remove(el)
	delete(c.entries, key)
	c.size -= el.Value.(*conditionalEntry).cost()
}
