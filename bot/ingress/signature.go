package ingress

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"hash"
	"strings"
	"sync"
)

// Signature headers, in canonical MIME form so that lookups do not allocate.
const (
	headerSignature256  = "X-Hub-Signature-256"
	headerSignatureSHA1 = "X-Hub-Signature"
	signaturePrefix     = "sha256="
)

var (
	errSignatureMissing   = errors.New("missing X-Hub-Signature-256 header")
	errSignatureSHA1Only  = errors.New("X-Hub-Signature-256 is required: SHA-1 signatures (X-Hub-Signature) are not accepted")
	errSignatureMalformed = errors.New("malformed X-Hub-Signature-256 header: want sha256=<64 hex digits>")
	errSignatureMismatch  = errors.New("X-Hub-Signature-256 does not match the payload")
)

// signatureVerifier checks X-Hub-Signature-256 against the webhook secret.
// It is safe for concurrent use; HMAC states are pooled.
type signatureVerifier struct {
	macs sync.Pool // of *macState
}

// macState is an HMAC keyed with the secret and room for its sum.
type macState struct {
	mac hash.Hash
	sum [sha256.Size]byte
}

func newSignatureVerifier(secret []byte) *signatureVerifier {
	key := append([]byte(nil), secret...)
	v := &signatureVerifier{}
	v.macs.New = func() any { return &macState{mac: hmac.New(sha256.New, key)} }
	return v
}

// verify reports whether sig256, the X-Hub-Signature-256 header value, is
// the HMAC-SHA256 of body; sha1Present says whether the request carried the
// legacy X-Hub-Signature header, to explain a refusal.
func (v *signatureVerifier) verify(sig256 string, sha1Present bool, body []byte) error {
	if sig256 == "" {
		if sha1Present {
			return errSignatureSHA1Only
		}
		return errSignatureMissing
	}
	var want [sha256.Size]byte
	hexSig, ok := strings.CutPrefix(sig256, signaturePrefix)
	if !ok || !decodeHex(want[:], hexSig) {
		return errSignatureMalformed
	}

	st := v.macs.Get().(*macState)
	defer v.macs.Put(st)
	st.mac.Reset()
	st.mac.Write(body)
	if !hmac.Equal(st.mac.Sum(st.sum[:0]), want[:]) {
		return errSignatureMismatch
	}
	return nil
}

// decodeHex decodes src, which must be exactly 2*len(dst) hex digits, into
// dst without allocating.
func decodeHex(dst []byte, src string) bool {
	if len(src) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := hexValue(src[2*i])
		lo, ok2 := hexValue(src[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
