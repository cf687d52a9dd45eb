package forge

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Reading git objects for the git data, contents and push payloads: the
// forge asks the git CLI for raw objects and parses them here.

// gdSignature is an author, committer or tagger line of a git object,
// with its time zone kept.
type gdSignature struct {
	Name  string
	Email string
	When  time.Time
}

// gdCommit is a parsed commit object.
type gdCommit struct {
	SHA       string
	Tree      string
	Parents   []string
	Author    gdSignature
	Committer gdSignature
	Message   string
	// Signature is the gpgsig header (unfolded), Payload the object
	// without it: what a signature is computed over.
	Signature string
	Payload   string
}

// gdTag is a parsed annotated tag object.
type gdTag struct {
	SHA        string
	Object     string
	ObjectType string
	Tag        string
	Tagger     gdSignature
	Message    string
	Signature  string
	Payload    string
}

// gdTreeEntry is one entry of a tree: mode as git prints it ("100644",
// "040000"), type blob|tree|commit, size (-1 unless a blob), and its path
// (relative to the tree listed).
type gdTreeEntry struct {
	Mode string
	Type string
	SHA  string
	Size int64
	Path string
}

// gdIsSHA reports whether s is a full lower- or upper-case hex object id.
func gdIsSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// gdValidRev accepts the revisions the API lets callers name (a sha, a
// branch or tag name, a full ref name) and nothing git would read as an
// option or as revision syntax (ranges, peeling, paths, reflogs).
func gdValidRev(s string) bool {
	if s == "" || len(s) > 1024 || strings.HasPrefix(s, "-") || strings.Contains(s, "..") || strings.Contains(s, "@{") {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c == 0x7f || strings.ContainsRune("~^:?*[\\", c) {
			return false
		}
	}
	return true
}

// gdValidRefName is git's check-ref-format for a full ref name under refs/
// with at least two slashes, as GitHub requires of POST /git/refs.
func gdValidRefName(ref string) bool {
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 || len(ref) > 1024 {
		return false
	}
	if strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") || strings.Contains(ref, "..") ||
		strings.Contains(ref, "@{") || strings.Contains(ref, "//") || ref == "@" {
		return false
	}
	for _, c := range ref {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	for _, comp := range strings.Split(ref, "/") {
		if comp == "" || strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

// gdValidTreePath accepts a slash-separated path inside a tree: no empty,
// "." or ".." components, no ".git" component, no NUL.
func gdValidTreePath(p string) bool {
	if p == "" || strings.ContainsRune(p, 0) {
		return false
	}
	for _, comp := range strings.Split(p, "/") {
		if comp == "" || comp == "." || comp == ".." || strings.EqualFold(comp, ".git") {
			return false
		}
	}
	return true
}

// gdSplitHeaders splits a commit or tag object into its headers (with
// continuation lines folded into their header) and message.
func gdSplitHeaders(raw []byte) (headers [][2]string, message string, payload string) {
	s := string(raw)
	head, msg, _ := strings.Cut(s, "\n\n")
	var payloadHead strings.Builder
	inSig := false
	for _, line := range strings.Split(head, "\n") {
		if strings.HasPrefix(line, " ") && len(headers) > 0 {
			headers[len(headers)-1][1] += "\n" + line[1:]
			if !inSig {
				payloadHead.WriteString(line + "\n")
			}
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		headers = append(headers, [2]string{k, v})
		inSig = k == "gpgsig" || k == "gpgsig-sha256"
		if !inSig {
			payloadHead.WriteString(line + "\n")
		}
	}
	return headers, msg, payloadHead.String() + "\n" + msg
}

// gdParseSignature reads "Name <email> 1700000000 +0200".
func gdParseSignature(s string) gdSignature {
	var sig gdSignature
	lt := strings.LastIndex(s, "<")
	gt := strings.LastIndex(s, ">")
	if lt < 0 || gt < lt {
		sig.Name = strings.TrimSpace(s)
		return sig
	}
	sig.Name = strings.TrimSpace(s[:lt])
	sig.Email = s[lt+1 : gt]
	fields := strings.Fields(s[gt+1:])
	if len(fields) >= 1 {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			loc := time.UTC
			if len(fields) >= 2 {
				loc = gdParseTZ(fields[1])
			}
			sig.When = time.Unix(sec, 0).In(loc)
		}
	}
	return sig
}

func gdParseTZ(tz string) *time.Location {
	if len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') {
		return time.UTC
	}
	h, err1 := strconv.Atoi(tz[1:3])
	m, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return time.UTC
	}
	off := (h*60 + m) * 60
	if tz[0] == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC
	}
	return time.FixedZone("", off)
}

// gdFormatSignature writes a signature line's value.
func gdFormatSignature(s gdSignature) string {
	_, off := s.When.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", gdSanitizeIdent(s.Name), gdSanitizeIdent(s.Email), s.When.Unix(), sign, off/3600, off%3600/60)
}

// gdSanitizeIdent drops what git refuses in identities (angle brackets,
// newlines) and trims, as git itself does.
func gdSanitizeIdent(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '<' || r == '>' || r == '\n' || r == '\r' || r == 0 {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

func gdParseCommit(sha string, raw []byte) *gdCommit {
	headers, msg, payload := gdSplitHeaders(raw)
	c := &gdCommit{SHA: sha, Message: msg}
	for _, h := range headers {
		switch h[0] {
		case "tree":
			c.Tree = h[1]
		case "parent":
			c.Parents = append(c.Parents, h[1])
		case "author":
			c.Author = gdParseSignature(h[1])
		case "committer":
			c.Committer = gdParseSignature(h[1])
		case "gpgsig", "gpgsig-sha256":
			c.Signature = h[1]
		}
	}
	if c.Signature != "" {
		c.Payload = payload
	}
	return c
}

func gdParseTag(sha string, raw []byte) *gdTag {
	s := string(raw)
	// A tag's signature trails its message.
	var sig string
	if i := strings.Index(s, "\n-----BEGIN PGP SIGNATURE-----"); i >= 0 {
		sig = s[i+1:]
		s = s[:i+1]
	}
	headers, msg, _ := gdSplitHeaders([]byte(s))
	t := &gdTag{SHA: sha, Message: msg, Signature: sig}
	if sig != "" {
		t.Payload = s
	}
	for _, h := range headers {
		switch h[0] {
		case "object":
			t.Object = h[1]
		case "type":
			t.ObjectType = h[1]
		case "tag":
			t.Tag = h[1]
		case "tagger":
			t.Tagger = gdParseSignature(h[1])
		}
	}
	return t
}

// gdReadCommit reads and parses a commit; errNoObject if sha is not one.
func (g *gitCLI) gdReadCommit(path, sha string) (*gdCommit, error) {
	raw, err := g.readObject(path, "commit", sha)
	if err != nil {
		return nil, err
	}
	return gdParseCommit(sha, raw), nil
}

// gdReadTag reads and parses an annotated tag.
func (g *gitCLI) gdReadTag(path, sha string) (*gdTag, error) {
	raw, err := g.readObject(path, "tag", sha)
	if err != nil {
		return nil, err
	}
	return gdParseTag(sha, raw), nil
}

// gdLsTree lists a tree (any tree-ish, e.g. "<commit>:<dir>"), recursively
// (with the trees themselves) when asked, with blob sizes.
func (g *gitCLI) gdLsTree(path, treeish string, recursive bool) ([]gdTreeEntry, error) {
	args := []string{"ls-tree", "-z", "-l"}
	if recursive {
		args = append(args, "-r", "-t")
	}
	args = append(args, treeish)
	out, err := g.run(path, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errNoObject, treeish)
	}
	var entries []gdTreeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) < 4 {
			continue
		}
		size := int64(-1)
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			size = n
		}
		entries = append(entries, gdTreeEntry{Mode: f[0], Type: f[1], SHA: f[2], Size: size, Path: string(p)})
	}
	return entries, nil
}

// gdObjectInfo is an object's type and size.
type gdObjectInfo struct {
	Type string
	Size int64
}

// gdBatchCheck returns the type and size of each object that exists (by the
// revision asked for); absent ones are left out.
func (g *gitCLI) gdBatchCheck(path string, revs []string) (map[string]gdObjectInfo, error) {
	if len(revs) == 0 {
		return map[string]gdObjectInfo{}, nil
	}
	var in bytes.Buffer
	for _, r := range revs {
		in.WriteString(r + "\n")
	}
	out, err := g.run(path, in.Bytes(), "cat-file", "--batch-check=%(objecttype) %(objectsize)")
	if err != nil {
		return nil, err
	}
	// One answer line per request line, in order: "<type> <size>" or "<name> missing".
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	m := map[string]gdObjectInfo{}
	for i, line := range lines {
		if i >= len(revs) {
			break
		}
		f := strings.Fields(line)
		if len(f) >= 2 && f[1] != "missing" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			m[revs[i]] = gdObjectInfo{Type: f[0], Size: n}
		}
	}
	return m, nil
}

// gdResolveCommit resolves a revision to a commit id (peeling tags).
func (g *gitCLI) gdResolveCommit(path, rev string) (string, error) {
	if !gdValidRev(rev) {
		return "", fmt.Errorf("%w: %s", errNoObject, rev)
	}
	return g.resolve(path, rev+"^{commit}")
}

// gdPeel resolves an object id to the commit it finally names ("" if none).
func (g *gitCLI) gdPeel(path, sha string) string {
	c, err := g.resolve(path, sha+"^{commit}")
	if err != nil {
		return ""
	}
	return c
}

// gdBase64 encodes as Ruby's Base64.encode64 (GitHub's contents and
// blob answers): lines of 60 characters, each ending in a newline.
func gdBase64(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/60 + 1)
	for len(enc) > 60 {
		b.WriteString(enc[:60])
		b.WriteByte('\n')
		enc = enc[60:]
	}
	if enc != "" {
		b.WriteString(enc)
		b.WriteByte('\n')
	}
	return b.String()
}

// gdEscapePath escapes each segment of a slash-separated path for a URL.
func gdEscapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// gdNodeID is a node id for objects named by a string (commits, trees).
func gdNodeID(kind, key string) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("0%d:%s%s", len(kind), kind, key)))
}
