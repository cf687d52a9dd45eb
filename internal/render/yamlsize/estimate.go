package yamlsize

import "bytes"

// PerDocument is what the package reader adds to every resource it reads
// (its path, index and package annotations and the mappings holding them),
// in nodes.
const PerDocument = 24

// EstimateNodes returns, without parsing, at least the number of nodes
// YAML parsing b makes (aliases not expanded), plus PerDocument per
// document: a file of tiny scalars costs the parser far more memory than
// its bytes, and the count bounds it before it is spent. It counts every
// word that can start a node (a quoted string or a block scalar is one),
// the collection each `:` or `- ` may open and the nulls it may imply (a
// key or value with nothing there), three for `? `, one for each `,` (an
// entry without a value) and two for each `[` and `{`; comments count
// nothing. Ordinary YAML counts about one and a half times its real nodes.
func EstimateNodes(b []byte) int64 {
	if bytes.IndexByte(b, '\r') >= 0 {
		// a lone CR breaks lines too
		b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	}
	s := scanner{b: b}
	return s.run()
}

type scanner struct {
	b     []byte
	i     int
	n     int64
	flow  int  // depth of [ and {
	start bool // a node may start here (quotes and block scalars count)
	sep   bool // the previous byte ended a word
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// spaceOrEnd reports whether b[i] is a blank or the end.
func (s *scanner) spaceOrEnd(i int) bool {
	return i >= len(s.b) || isSpace(s.b[i])
}

func (s *scanner) run() int64 {
	s.n = 1 + PerDocument
	s.lineStart()
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '\n':
			s.i++
			s.lineStart()
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
			s.sep = true
		case c == '#' && s.sep:
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		case (c == '"' || c == '\'') && s.start:
			s.quoted(c)
		case (c == '|' || c == '>') && s.start && s.blockHeader():
			// blockHeader consumed the header and the block
		case c == '[' || c == '{':
			s.n += 2
			s.flow++
			s.i++
			s.start, s.sep = true, true
		case c == ']' || c == '}':
			if s.flow > 0 {
				s.flow--
			}
			s.i++
			s.start, s.sep = false, true
		case c == ',':
			s.n++ // a flow mapping entry's null value
			s.i++
			s.start, s.sep = s.flow > 0, true
		case c == '?' && s.sep && s.spaceOrEnd(s.i+1):
			s.n += 3 // a mapping, a null key, a null value
			s.i++
			s.start, s.sep = true, true
		case c == '-' && s.sep && s.spaceOrEnd(s.i+1):
			s.n++ // a sequence
			if s.restIsEmpty(s.i + 1) {
				s.n++ // a null item
			}
			s.i++
			s.start, s.sep = true, true
		case c == ':' && (s.spaceOrEnd(s.i+1) || (s.flow > 0 && s.i+1 < len(s.b) && (s.b[s.i+1] == ',' || s.b[s.i+1] == ']' || s.b[s.i+1] == '}'))):
			s.n++ // a mapping
			if s.start {
				s.n++ // a null key
			}
			if s.restIsEmpty(s.i+1) || (s.i+1 < len(s.b) && (s.b[s.i+1] == ',' || s.b[s.i+1] == ']' || s.b[s.i+1] == '}')) {
				s.n++ // a null value
			}
			s.i++
			s.start, s.sep = true, true
		default:
			if s.sep {
				s.n++
				if (c == '-' || c == '.') && s.i+2 < len(s.b) && s.b[s.i+1] == c && s.b[s.i+2] == c {
					s.n += 1 + PerDocument // a document marker, most likely: a document, maybe empty
				}
			}
			s.i++
			s.start, s.sep = false, false
		}
	}
	return s.n
}

// docMarker reports whether a line starting at i is a document marker.
func (s *scanner) docMarker(i int) bool {
	if i+3 > len(s.b) {
		return false
	}
	m := string(s.b[i : i+3])
	return (m == "---" || m == "...") && s.spaceOrEnd(i+3)
}

// restIsEmpty reports whether the line holds nothing but blanks and a
// comment from i on.
func (s *scanner) restIsEmpty(i int) bool {
	for ; i < len(s.b) && s.b[i] != '\n'; i++ {
		switch s.b[i] {
		case ' ', '\t':
		case '#':
			return true
		default:
			return false
		}
	}
	return true
}

// lineStart skips a line's indentation.
func (s *scanner) lineStart() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t') {
		s.i++
	}
	s.start, s.sep = true, true
}

// quoted skips a quoted scalar, one node.
func (s *scanner) quoted(q byte) {
	s.n++
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '\n' && s.docMarker(s.i):
			// a document marker ends any scalar
			s.i--
			s.start, s.sep = false, false
			return
		case q == '"' && c == '\\':
			s.i++
		case c == q && q == '\'' && s.i < len(s.b) && s.b[s.i] == '\'':
			s.i++
		case c == q:
			s.start, s.sep = false, false
			return
		}
	}
}

// blockHeader recognises a block scalar header (| or >, indentation and
// chomping indicators, then the end of the line or a comment) and skips
// the block: the lines indented more than the line's first word, down to
// the first line indented less than the block's first line.
func (s *scanner) blockHeader() bool {
	j := s.i + 1
	for j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-' || (s.b[j] >= '0' && s.b[j] <= '9')) {
		j++
	}
	for j < len(s.b) && (s.b[j] == ' ' || s.b[j] == '\t' || s.b[j] == '\r') {
		j++
	}
	if j < len(s.b) && s.b[j] == '#' && isSpace(s.b[j-1]) {
		for j < len(s.b) && s.b[j] != '\n' {
			j++
		}
	}
	if j < len(s.b) && s.b[j] != '\n' {
		return false
	}
	parent := s.parentColumn()
	s.n++
	s.i = j
	content := -1
	for s.i < len(s.b) {
		// s.b[s.i] is '\n': look at the next line
		k := s.i + 1
		ind := 0
		for k < len(s.b) && s.b[k] == ' ' {
			k++
			ind++
		}
		if k >= len(s.b) {
			s.i = k
			return true
		}
		if s.b[k] == '\r' && k+1 < len(s.b) && s.b[k+1] == '\n' {
			k++
		}
		if s.b[k] == '\n' {
			s.i = k
			continue // blank line
		}
		if ind <= parent || (content >= 0 && ind < content) {
			break
		}
		if content < 0 {
			content = ind
		}
		for k < len(s.b) && s.b[k] != '\n' {
			k++
		}
		s.i = k
	}
	s.start, s.sep = false, false
	return true
}

// parentColumn is the column of the first word on the current line after
// its indentation and sequence indicators: a block scalar's content must
// be indented more than that (counting too much is safe, too little not).
func (s *scanner) parentColumn() int {
	ls := s.i
	for ls > 0 && s.b[ls-1] != '\n' {
		ls--
	}
	k := ls
	for k < s.i {
		switch {
		case s.b[k] == ' ' || s.b[k] == '\t':
			k++
		case s.b[k] == '-' && (k+1 < len(s.b) && isSpace(s.b[k+1])):
			k++
		default:
			return k - ls
		}
	}
	return s.i - ls
}
