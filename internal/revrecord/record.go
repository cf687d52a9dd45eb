// Package revrecord is the record porchbot signs into the annotated tag of
// every revision it publishes (<package>/v<N>), and the one test of
// whether a tag is such a revision (IsRevision). Everything that derives
// something from a tag (a release, an update pull request, a variant, the
// package index, /porch list, the dashboard, the catalog) asks IsRevision
// first, so a tag pushed by hand, or an annotated tag with a copied or
// altered record, counts for nothing until an approver adopts it.
//
// The record is a line of the tag's message:
//
//	porchbot-revision: {"repo":"acme/catalog","package":"network/upf","revision":2,"commit":"<sha>","approvers":["bob"],"pr":12,"sig":"<hex>"}
//
// sig is an HMAC-SHA256, under the key of porchbot's other records
// (derived from the webhook secret, core.RecordKey), over every other
// field: who cannot compute it cannot make a record, and a record names the
// repository, package, revision and commit it was made for, so one copied
// onto another tag does not verify there.
package revrecord

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// linePrefix starts the record's line in the tag message.
const linePrefix = "porchbot-revision: "

// Why a tag is not a porchbot revision.
var (
	// ErrLightweight: the ref names a commit, not an annotated tag.
	ErrLightweight = errors.New("a lightweight tag (porchbot's revisions are annotated tags)")
	// ErrNoRecord: an annotated tag whose message has no record.
	ErrNoRecord = errors.New("an annotated tag without porchbot's record")
	// ErrSignature: a record whose signature does not verify.
	ErrSignature = errors.New("its record's signature does not verify")
	// ErrSubject: a valid record made for another repository, package,
	// revision or commit.
	ErrSubject = errors.New("its record was made for another revision")
)

// Record is what porchbot vouches for about one revision.
type Record struct {
	// Repo is the repository's full name, "owner/name" (compared case
	// insensitively).
	Repo     string `json:"repo"`
	Package  string `json:"package"`
	Revision int    `json:"revision"`
	Commit   string `json:"commit"`
	// Approvers are the approvals the verdict counted.
	Approvers []string `json:"approvers,omitempty"`
	// PR is the pull request that landed the commit (0: none).
	PR int `json:"pr,omitempty"`
	// By is the approver whose /porch publish published it ("" when a
	// merge met the approval policy).
	By string `json:"by,omitempty"`
	// Adopted: the tag was pushed by someone else and adopted by By.
	Adopted bool   `json:"adopted,omitempty"`
	Sig     string `json:"sig,omitempty"`
}

// signature is the HMAC of every field but Sig.
func (r Record) signature(key []byte) string {
	mac := hmac.New(sha256.New, key)
	approvers := make([]string, len(r.Approvers))
	for i, a := range r.Approvers {
		approvers[i] = strings.ToLower(a)
	}
	fmt.Fprintf(mac, "porchbot:revision\x00%s\x00%s\x00%d\x00%s\x00%s\x00%d\x00%s\x00%t",
		strings.ToLower(r.Repo), r.Package, r.Revision, strings.ToLower(r.Commit),
		strings.Join(approvers, ","), r.PR, strings.ToLower(r.By), r.Adopted)
	return hex.EncodeToString(mac.Sum(nil))
}

// Sign returns r with its signature under key.
func Sign(key []byte, r Record) Record {
	r.Sig = ""
	r.Sig = r.signature(key)
	return r
}

// Message is the annotated tag's message for the signed record r: the
// tag's name, one sentence for people, and the record's line.
func Message(r Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/v%d\n\n", r.Package, r.Revision)
	switch {
	case r.Adopted:
		fmt.Fprintf(&b, "Adopted by porchbot as a revision on %s's /porch publish.\n", r.By)
	case r.By != "":
		fmt.Fprintf(&b, "Published by porchbot on %s's /porch publish.\n", r.By)
	case r.PR != 0:
		fmt.Fprintf(&b, "Published by porchbot on the merge of pull request #%d.\n", r.PR)
	default:
		b.WriteString("Published by porchbot.\n")
	}
	if len(r.Approvers) > 0 {
		fmt.Fprintf(&b, "Approved by %s.\n", strings.Join(r.Approvers, ", "))
	}
	line, _ := json.Marshal(r)
	b.WriteString("\n" + linePrefix + string(line) + "\n")
	return b.String()
}

// Parse reads the record of a tag message (the last record line).
func Parse(message string) (Record, bool) {
	lines := strings.Split(message, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		raw, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), linePrefix)
		if !ok {
			continue
		}
		var r Record
		if json.Unmarshal([]byte(raw), &r) != nil {
			return Record{}, false
		}
		return r, true
	}
	return Record{}, false
}

// Verify checks a tag message's record under key against what the tag is:
// revision n of pkg in repo, on commit. It returns the record, or why the
// tag is not porchbot's revision (ErrNoRecord, ErrSignature, ErrSubject).
func Verify(key []byte, message, repo, pkg string, n int, commit string) (Record, error) {
	r, ok := Parse(message)
	if !ok {
		return Record{}, ErrNoRecord
	}
	if !hmac.Equal([]byte(r.signature(key)), []byte(strings.ToLower(r.Sig))) {
		return Record{}, ErrSignature
	}
	switch {
	case !strings.EqualFold(r.Repo, repo):
		// not named: readers of this repository may not read that one
		return Record{}, fmt.Errorf("%w: in another repository", ErrSubject)
	case r.Package != pkg || r.Revision != n:
		return Record{}, fmt.Errorf("%w: %s/v%d", ErrSubject, r.Package, r.Revision)
	case !strings.EqualFold(r.Commit, commit):
		return Record{}, fmt.Errorf("%w: commit %s", ErrSubject, r.Commit)
	}
	return r, nil
}
