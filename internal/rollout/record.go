package rollout

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Record is what porchbot has observed and been told of one package's
// rollout: kept by porchbot in the upstream repository (the porch/rollouts
// branch), signed, so that every replica plans from the same facts and
// nobody else can write them.
type Record struct {
	Package string `json:"package"`
	// Paused: an approver paused the rollout (nil: running).
	Paused *Control `json:"paused,omitempty"`
	// Resumed is the last resume: failures reported before it are
	// acknowledged and no longer stop the rollout.
	Resumed *Control `json:"resumed,omitempty"`
	// Skipped are waves an approver let the rollout of a revision go past.
	Skipped []Skip `json:"skipped,omitempty"`
	// Downstreams are keyed by Key.
	Downstreams map[string]*Progress `json:"downstreams,omitempty"`
}

// Control is who changed the rollout, and when.
type Control struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// Skip is a wave skipped for a revision.
type Skip struct {
	Wave     string    `json:"wave"`
	Revision int       `json:"revision"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
}

// Progress is one downstream's part in the rollout.
type Progress struct {
	// Offered is the highest revision an update was proposed for.
	Offered int `json:"offered,omitempty"`
	// Merged is when porchbot first saw the downstream hold Revision.
	Merged *Merge `json:"merged,omitempty"`
	// Excluded says why the last offer could not be made (the downstream
	// is not set up, the flow rule refused): it does not count in its
	// wave's rule until an offer succeeds.
	Excluded string `json:"excluded,omitempty"`
	// Reports are the latest deployment report of each status context.
	Reports map[string]Report `json:"reports,omitempty"`
}

// Merge is when a downstream was first seen holding a revision.
type Merge struct {
	Revision int       `json:"revision"`
	At       time.Time `json:"at"`
}

// Report states.
const (
	Success = "success"
	Failure = "failure"
	Pending = "pending"
)

// Report is a deployment's report on a downstream commit holding Revision.
type Report struct {
	Revision int    `json:"revision"`
	State    string `json:"state"`
	// At is when the report was made (GitHub's time); Since is when the
	// context first reported Success for Revision (zero otherwise).
	At          time.Time `json:"at"`
	Since       time.Time `json:"since,omitzero"`
	URL         string    `json:"url,omitempty"`
	Description string    `json:"description,omitempty"`
	// Acked: a failure a resume acknowledged; it stays acknowledged while
	// the context keeps reporting failure on the same revision.
	Acked bool `json:"acked,omitempty"`
}

// Bounds of what a record keeps of a report.
const (
	MaxContexts          = 20
	maxDescriptionRunes  = 140
	maxURLBytes          = 500
	maxContextNameBytes  = 255
	maxRecordDownstreams = 50000
)

// progress returns the downstream's progress, created when absent.
func (r *Record) progress(key string) *Progress {
	if r.Downstreams == nil {
		r.Downstreams = map[string]*Progress{}
	}
	p := r.Downstreams[key]
	if p == nil {
		p = &Progress{}
		r.Downstreams[key] = p
	}
	return p
}

// Observe records a deployment report of context on downstream key. A
// report older than the context's last is ignored. It says whether the
// record changed.
func (r *Record) Observe(key, context string, rep Report) bool {
	if len(context) > maxContextNameBytes || rep.Revision <= 0 {
		return false
	}
	rep.Description = truncateRunes(rep.Description, maxDescriptionRunes)
	if len(rep.URL) > maxURLBytes || !(strings.HasPrefix(rep.URL, "https://") || strings.HasPrefix(rep.URL, "http://")) {
		rep.URL = ""
	}
	if _, exists := r.Downstreams[key]; !exists && len(r.Downstreams) >= maxRecordDownstreams {
		return false
	}
	p := r.progress(key)
	old, had := p.Reports[context]
	if had && rep.At.Before(old.At) {
		return false
	}
	rep.Since, rep.Acked = time.Time{}, false
	if rep.State == Failure && had && old.Acked && old.State == Failure && old.Revision == rep.Revision {
		rep.Acked = true
	}
	if rep.State == Success {
		rep.Since = rep.At
		if had && old.State == Success && old.Revision == rep.Revision {
			rep.Since = old.Since
		}
	}
	if had && old == rep {
		return false
	}
	if p.Reports == nil {
		p.Reports = map[string]Report{}
	}
	if !had && len(p.Reports) >= MaxContexts {
		oldest := ""
		for c, o := range p.Reports {
			if oldest == "" || o.At.Before(p.Reports[oldest].At) {
				oldest = c
			}
		}
		delete(p.Reports, oldest)
	}
	p.Reports[context] = rep
	return true
}

// Offer records that an update to revision was proposed to downstream key
// (excluded: why it could not be).
func (r *Record) Offer(key string, revision int, excluded string) bool {
	p := r.progress(key)
	before := *p
	if excluded != "" {
		p.Excluded = excluded
	} else {
		p.Excluded = ""
		p.Offered = max(p.Offered, revision)
	}
	return before.Offered != p.Offered || before.Excluded != p.Excluded
}

// Pause pauses the rollout.
func (r *Record) Pause(by string, at time.Time) { r.Paused = &Control{By: by, At: at} }

// Resume runs the rollout again, acknowledging the failures reported so
// far (each stays acknowledged while its context keeps failing on the
// same revision: a deployer that posts the same failure again does not
// stop the rollout again).
func (r *Record) Resume(by string, at time.Time) {
	r.Paused = nil
	r.Resumed = &Control{By: by, At: at}
	for _, p := range r.Downstreams {
		for c, rep := range p.Reports {
			if rep.State == Failure && !rep.Acked {
				rep.Acked = true
				p.Reports[c] = rep
			}
		}
	}
}

// SkipWave lets the rollout of revision go past wave.
func (r *Record) SkipWave(wave string, revision int, by string, at time.Time) {
	for _, s := range r.Skipped {
		if s.Wave == wave && s.Revision == revision {
			return
		}
	}
	r.Skipped = append(r.Skipped, Skip{Wave: wave, Revision: revision, By: by, At: at})
}

func (r *Record) skipped(wave string, revision int) (Skip, bool) {
	for _, s := range r.Skipped {
		if s.Wave == wave && s.Revision == revision {
			return s, true
		}
	}
	return Skip{}, false
}

// Prune forgets downstreams not in keep and skips of revisions before
// revision.
func (r *Record) Prune(keep map[string]bool, revision int) {
	for k := range r.Downstreams {
		if !keep[k] {
			delete(r.Downstreams, k)
		}
	}
	skips := r.Skipped[:0]
	for _, s := range r.Skipped {
		if s.Revision >= revision {
			skips = append(skips, s)
		}
	}
	r.Skipped = skips
	if len(r.Skipped) == 0 {
		r.Skipped = nil
	}
}

func truncateRunes(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// ErrSignature: the stored record was not written by porchbot (or for
// another repository or package).
var ErrSignature = errors.New("the rollout record's signature does not verify: porchbot did not write it")

// stored is a record file: the record's JSON and its signature.
type stored struct {
	Record json.RawMessage `json:"record"`
	Sig    string          `json:"sig"`
}

func signature(key []byte, repo string, data []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "porchbot:rollout\x00%s\x00", strings.ToLower(repo))
	mac.Write(data)
	return hex.EncodeToString(mac.Sum(nil))
}

// Encode is the signed file of r in repo.
func Encode(key []byte, repo string, r Record) ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode the rollout record of %s: %w", r.Package, err)
	}
	out, err := json.MarshalIndent(stored{Record: data, Sig: signature(key, repo, data)}, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode the rollout record of %s: %w", r.Package, err)
	}
	return append(out, '\n'), nil
}

// Decode reads the signed file (the signature is over the record's
// compact JSON, so the file's indentation does not matter) of pkg's record in repo (ErrSignature when
// porchbot did not write it for them).
func Decode(key []byte, repo, pkg string, file []byte) (Record, error) {
	var s stored
	if err := json.Unmarshal(file, &s); err != nil {
		return Record{}, fmt.Errorf("%w (%v)", ErrSignature, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, s.Record); err != nil || !hmac.Equal([]byte(s.Sig), []byte(signature(key, repo, compact.Bytes()))) {
		return Record{}, ErrSignature
	}
	var r Record
	if err := json.Unmarshal(s.Record, &r); err != nil {
		return Record{}, fmt.Errorf("the rollout record of %s: %w", pkg, err)
	}
	if r.Package != pkg {
		return Record{}, ErrSignature
	}
	return r, nil
}
