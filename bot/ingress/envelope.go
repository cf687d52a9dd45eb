package ingress

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// envelope holds what ingress needs from a payload to route and key an event
// before it is queued. The typed go-github event is decoded by the worker.
type envelope struct {
	action         string
	installationID int64
	repo           string
}

// maxNestingDepth is encoding/json's limit, so that parseEnvelope accepts
// exactly the documents the worker's decoder will.
const maxNestingDepth = 10000

var (
	errNotObject     = errors.New("payload is not a JSON object")
	errUnexpectedEOF = errors.New("unexpected end of JSON input")
	errTooDeep       = errors.New("exceeded max nesting depth")
)

// parseEnvelope checks in one pass that body is a single JSON object (with
// the grammar of encoding/json.Valid) and extracts the top-level "action",
// "installation"."id" and "repository"."full_name".
//
// Those members must have the types go-github decodes them into (string,
// integer, object) or be null; anything else is an error, as the typed
// decode would fail later. Keys are matched exactly (GitHub sends them in
// lower case) after unescaping; when a key repeats, the last one wins, as
// with encoding/json.
func parseEnvelope(body []byte) (envelope, error) {
	s := envelopeScanner{data: body}
	var env envelope
	s.skipSpace()
	if s.pos >= len(s.data) {
		return env, errUnexpectedEOF
	}
	if s.data[s.pos] != '{' {
		return env, errNotObject
	}
	if err := s.topObject(&env); err != nil {
		return envelope{}, err
	}
	s.skipSpace()
	if s.pos != len(s.data) {
		return envelope{}, s.syntaxError("after top-level value")
	}
	return env, nil
}

// envelopeScanner is a recursive-descent JSON validator over data.
type envelopeScanner struct {
	data []byte
	pos  int
}

// stringPlain marks the bytes that may appear unescaped in a JSON string
// and need no attention: everything but control characters, '"' and '\\'.
// Like encoding/json, bytes of invalid UTF-8 are accepted.
var stringPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *envelopeScanner) syntaxError(context string) error {
	if s.pos >= len(s.data) {
		return errUnexpectedEOF
	}
	return fmt.Errorf("invalid character %q at offset %d %s", s.data[s.pos], s.pos, context)
}

func (s *envelopeScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// expect consumes c, after optional whitespace.
func (s *envelopeScanner) expect(c byte, context string) error {
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != c {
		return s.syntaxError(context)
	}
	s.pos++
	return nil
}

// members iterates over the members of the object starting at s.pos, calling
// member with each key once the scanner is positioned before its value;
// member must consume the value.
func (s *envelopeScanner) members(depth int, member func(key []byte, depth int) error) error {
	depth++
	if depth > maxNestingDepth {
		return errTooDeep
	}
	s.pos++ // '{'
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntaxError("looking for beginning of object key string")
		}
		key, err := s.key()
		if err != nil {
			return err
		}
		if err := s.expect(':', "after object key"); err != nil {
			return err
		}
		if err := member(key, depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEOF
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.syntaxError("after object key:value pair")
		}
	}
}

// key scans an object key and returns it unescaped.
func (s *envelopeScanner) key() ([]byte, error) {
	start := s.pos
	raw, escaped, err := s.str()
	if err != nil || !escaped {
		return raw, err
	}
	var k string
	if err := json.Unmarshal(s.data[start:s.pos], &k); err != nil {
		return nil, fmt.Errorf("object key: %w", err)
	}
	return []byte(k), nil
}

func (s *envelopeScanner) topObject(env *envelope) error {
	return s.members(0, func(key []byte, depth int) error {
		var err error
		switch string(key) {
		case "action":
			env.action, err = s.optString(depth, "action")
		case "installation":
			env.installationID = 0
			err = s.optObject(depth, "installation", func(key []byte, depth int) error {
				if string(key) != "id" {
					return s.skipValue(depth)
				}
				var err error
				env.installationID, err = s.optInt(depth, "installation.id")
				return err
			})
		case "repository":
			env.repo = ""
			err = s.optObject(depth, "repository", func(key []byte, depth int) error {
				if string(key) != "full_name" {
					return s.skipValue(depth)
				}
				var err error
				env.repo, err = s.optString(depth, "repository.full_name")
				return err
			})
		default:
			err = s.skipValue(depth)
		}
		return err
	})
}

// peekValue skips whitespace and returns the first byte of the next value.
func (s *envelopeScanner) peekValue() (byte, error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0, errUnexpectedEOF
	}
	return s.data[s.pos], nil
}

func typeError(field, want string) error {
	return fmt.Errorf("%s: want %s or null", field, want)
}

// optObject scans an object (calling member for each member) or null.
func (s *envelopeScanner) optObject(depth int, field string, member func(key []byte, depth int) error) error {
	c, err := s.peekValue()
	switch {
	case err != nil:
		return err
	case c == '{':
		return s.members(depth, member)
	case c == 'n':
		return s.literal("null")
	default:
		return s.wrongType(depth, field, "an object")
	}
}

// optString scans a string, returned unescaped, or null, returned as "".
func (s *envelopeScanner) optString(depth int, field string) (string, error) {
	c, err := s.peekValue()
	switch {
	case err != nil:
		return "", err
	case c == '"':
		start := s.pos
		raw, escaped, err := s.str()
		if err != nil {
			return "", err
		}
		if !escaped && utf8.Valid(raw) {
			return string(raw), nil
		}
		// Rare: let encoding/json apply its unescaping and replacement of
		// invalid UTF-8, so the value matches the worker's decode.
		var v string
		if err := json.Unmarshal(s.data[start:s.pos], &v); err != nil {
			return "", fmt.Errorf("%s: %w", field, err)
		}
		return v, nil
	case c == 'n':
		return "", s.literal("null")
	default:
		return "", s.wrongType(depth, field, "a string")
	}
}

// optInt scans an integer that fits int64, or null, returned as 0.
func (s *envelopeScanner) optInt(depth int, field string) (int64, error) {
	c, err := s.peekValue()
	switch {
	case err != nil:
		return 0, err
	case c == '-' || ('0' <= c && c <= '9'):
		lit, err := s.number()
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil {
			return 0, typeError(field, "an integer")
		}
		return n, nil
	case c == 'n':
		return 0, s.literal("null")
	default:
		return 0, s.wrongType(depth, field, "an integer")
	}
}

// wrongType reports a member of the wrong type, unless the document is not
// valid JSON at all, in which case the syntax error wins.
func (s *envelopeScanner) wrongType(depth int, field, want string) error {
	if err := s.skipValue(depth); err != nil {
		return err
	}
	return typeError(field, want)
}

// skipValue validates and skips the value at s.pos.
func (s *envelopeScanner) skipValue(depth int) error {
	c, err := s.peekValue()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		return s.skipObject(depth)
	case c == '[':
		return s.skipArray(depth)
	case c == '"':
		_, _, err := s.str()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		_, err := s.number()
		return err
	default:
		return s.syntaxError("looking for beginning of value")
	}
}

func (s *envelopeScanner) skipObject(depth int) error {
	depth++
	if depth > maxNestingDepth {
		return errTooDeep
	}
	s.pos++ // '{'
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntaxError("looking for beginning of object key string")
		}
		if _, _, err := s.str(); err != nil {
			return err
		}
		if err := s.expect(':', "after object key"); err != nil {
			return err
		}
		if err := s.skipValue(depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEOF
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.syntaxError("after object key:value pair")
		}
	}
}

func (s *envelopeScanner) skipArray(depth int) error {
	depth++
	if depth > maxNestingDepth {
		return errTooDeep
	}
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		if err := s.skipValue(depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEOF
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.syntaxError("after array element")
		}
	}
}

// str scans the string starting at s.pos (a '"') and returns its raw
// contents, without the quotes, and whether it contains escapes.
func (s *envelopeScanner) str() (raw []byte, escaped bool, err error) {
	s.pos++ // opening quote
	start := s.pos
	data := s.data
	for {
		// Eight bytes at a time up to the first byte that needs attention,
		// then byte by byte over the last few.
		i := s.pos
		for {
			if i+8 > len(data) {
				for i < len(data) && stringPlain[data[i]] {
					i++
				}
				break
			}
			if m := stringSpecialMask(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		s.pos = i
		if i >= len(data) {
			return nil, false, errUnexpectedEOF
		}
		switch data[i] {
		case '"':
			s.pos++
			return data[start:i], escaped, nil
		case '\\':
			escaped = true
			if err := s.escape(); err != nil {
				return nil, false, err
			}
		default:
			return nil, false, s.syntaxError("in string literal")
		}
	}
}

// escape consumes the escape sequence at s.pos (a '\\').
func (s *envelopeScanner) escape() error {
	s.pos++
	if s.pos >= len(s.data) {
		return errUnexpectedEOF
	}
	switch s.data[s.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos++
		return nil
	case 'u':
		s.pos++
		for range 4 {
			if s.pos >= len(s.data) {
				return errUnexpectedEOF
			}
			if !isHex(s.data[s.pos]) {
				return s.syntaxError("in \\u hexadecimal character escape")
			}
			s.pos++
		}
		return nil
	default:
		return s.syntaxError("in string escape code")
	}
}

// stringSpecialMask flags, in the high bit of each byte, the bytes of x
// (little-endian) that are control characters, '"' or '\\', with the SWAR
// tests of Bit Twiddling Hacks ("Determine if a word has a byte less than
// n", "... equal to n"). Borrows can flag bytes above a true match, never
// below, so the lowest flag is exactly the first such byte.
func stringSpecialMask(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	less := (x - ones*0x20) & ^x & highs // a byte < 0x20
	q := x ^ (ones * '"')
	quote := (q - ones) & ^q & highs // a byte == '"'
	b := x ^ (ones * '\\')
	backslash := (b - ones) & ^b & highs // a byte == '\\'
	return less | quote | backslash
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number scans a number and returns its literal.
func (s *envelopeScanner) number() ([]byte, error) {
	start := s.pos
	data := s.data
	if data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos >= len(data):
		return nil, errUnexpectedEOF
	case data[s.pos] == '0':
		s.pos++
	case isDigit(data[s.pos]):
		for s.pos < len(data) && isDigit(data[s.pos]) {
			s.pos++
		}
	default:
		return nil, s.syntaxError("in numeric literal")
	}
	if s.pos < len(data) && data[s.pos] == '.' {
		s.pos++
		if err := s.digits(); err != nil {
			return nil, err
		}
	}
	if s.pos < len(data) && (data[s.pos] == 'e' || data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(data) && (data[s.pos] == '+' || data[s.pos] == '-') {
			s.pos++
		}
		if err := s.digits(); err != nil {
			return nil, err
		}
	}
	return data[start:s.pos], nil
}

// digits consumes one or more decimal digits.
func (s *envelopeScanner) digits() error {
	if s.pos >= len(s.data) {
		return errUnexpectedEOF
	}
	if !isDigit(s.data[s.pos]) {
		return s.syntaxError("in numeric literal")
	}
	for s.pos < len(s.data) && isDigit(s.data[s.pos]) {
		s.pos++
	}
	return nil
}

// literal consumes lit (true, false or null).
func (s *envelopeScanner) literal(lit string) error {
	for i := range len(lit) {
		if s.pos >= len(s.data) {
			return errUnexpectedEOF
		}
		if s.data[s.pos] != lit[i] {
			return s.syntaxError("in literal " + lit)
		}
		s.pos++
	}
	return nil
}
