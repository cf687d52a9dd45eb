package github

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateBudget is what GitHub last said of an installation's core rate limit
// (x-ratelimit-limit, -remaining, -reset on any answer, 304s included).
type RateBudget struct {
	Limit, Remaining int
	Reset            time.Time
}

// Low: fewer than fraction of the limit remain before the reset.
func (b RateBudget) Low(fraction float64, now time.Time) bool {
	return b.Limit > 0 && now.Before(b.Reset) && float64(b.Remaining) < fraction*float64(b.Limit)
}

// budgetWatch keeps the last RateBudget an installation's answers gave.
type budgetWatch struct {
	mu   sync.Mutex
	last RateBudget
	seen bool
}

func (w *budgetWatch) observe(resp *http.Response) {
	if resp == nil {
		return
	}
	h := resp.Header
	if r := h.Get(headerRateResource); r != "" && r != "core" {
		return
	}
	limit, err1 := strconv.Atoi(h.Get("X-Ratelimit-Limit"))
	rem, err2 := strconv.Atoi(h.Get(headerRateRemaining))
	reset, err3 := strconv.ParseInt(h.Get(headerRateReset), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	w.mu.Lock()
	w.last, w.seen = RateBudget{Limit: limit, Remaining: rem, Reset: time.Unix(reset, 0)}, true
	w.mu.Unlock()
}

func (w *budgetWatch) get() (RateBudget, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last, w.seen
}

// RateBudget is installation id's budget as its last answer gave it (ok
// false before any answer).
func (c *Clients) RateBudget(installationID int64) (RateBudget, bool) {
	c.mu.Lock()
	inst, ok := c.installations[installationID]
	c.mu.Unlock()
	if !ok {
		return RateBudget{}, false
	}
	return inst.budget.get()
}
