package fnimage

import (
	"fmt"
	"path"
	"strings"
)

// Rule is one entry of the server's function image allowlist:
//
//	REPOSITORY              any tag or digest of the repository
//	REPOSITORY:TAG          tags matching TAG (a glob: v1.*, *)
//	REPOSITORY@sha256:HEX   that image only, however the Kptfile names it
//
// REPOSITORY is written in full, registry host included
// (ghcr.io/acme/fns/validate), and may be a glob over its path
// (ghcr.io/acme/fns/*: one level, as path.Match).
type Rule struct {
	Repository string
	Tag        string // glob; "" any
	Digest     string // "" any
}

// Allowlist is the server's function image allowlist.
type Allowlist []Rule

// ParseAllowlist reads allowlist entries (empty ones are skipped).
func ParseAllowlist(entries []string) (Allowlist, error) {
	var out Allowlist
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		r, err := parseRule(e)
		if err != nil {
			return nil, fmt.Errorf("function image allowlist entry %q: %w", e, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRule(e string) (Rule, error) {
	var r Rule
	if i := strings.Index(e, "@"); i >= 0 {
		e, r.Digest = e[:i], e[i+1:]
		if !validDigest(r.Digest) {
			return Rule{}, fmt.Errorf("the digest %q is not sha256:<64 hex digits>", r.Digest)
		}
	}
	if i := strings.LastIndex(e, ":"); i > strings.LastIndex(e, "/") {
		e, r.Tag = e[:i], e[i+1:]
		if r.Tag == "" {
			return Rule{}, fmt.Errorf("the tag after %q is empty", e+":")
		}
		if _, err := path.Match(r.Tag, ""); err != nil {
			return Rule{}, fmt.Errorf("the tag pattern %q: %w", r.Tag, err)
		}
	}
	if r.Tag != "" && r.Digest != "" {
		return Rule{}, fmt.Errorf("name a tag pattern or a digest, not both")
	}
	host, rest, ok := strings.Cut(e, "/")
	if !ok || rest == "" || !strings.ContainsAny(host, ".:") && host != "localhost" {
		return Rule{}, fmt.Errorf("write the repository in full, its registry host first (ghcr.io/acme/fn)")
	}
	if _, err := path.Match(e, ""); err != nil {
		return Rule{}, fmt.Errorf("the repository pattern %q: %w", e, err)
	}
	r.Repository = e
	return r, nil
}

// validDigest reports whether d is sha256:<64 lower-case hex digits>.
func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Match is the first rule that lets the image repository at tag (""
// when named by digest alone) and digest ("" when named by tag alone)
// run. A rule pinning a digest matches an image named by tag only once
// its digest is known: the caller asks again with it.
func (a Allowlist) Match(repository, tag, digest string) (Rule, bool) {
	for _, r := range a {
		if ok, _ := path.Match(r.Repository, repository); !ok {
			continue
		}
		switch {
		case r.Digest != "":
			if digest == r.Digest {
				return r, true
			}
		case r.Tag != "":
			if ok, _ := path.Match(r.Tag, tag); ok && tag != "" {
				return r, true
			}
		default:
			return r, true
		}
	}
	return Rule{}, false
}

// mayTake reports whether some rule may let the repository run at tag
// (a rule pinning a digest may, once the tag's digest is known).
func (a Allowlist) mayTake(repository, tag string) bool {
	for _, r := range a {
		if ok, _ := path.Match(r.Repository, repository); !ok {
			continue
		}
		if ok, _ := path.Match(r.Tag, tag); r.Digest != "" || r.Tag == "" || ok {
			return true
		}
	}
	return false
}

// Names reports whether some rule could let the repository run (its tag
// or digest still to be checked).
func (a Allowlist) Names(repository string) bool {
	for _, r := range a {
		if ok, _ := path.Match(r.Repository, repository); ok {
			return true
		}
	}
	return false
}
