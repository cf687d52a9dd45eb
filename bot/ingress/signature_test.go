package ingress

import (
	"errors"
	"strings"
	"testing"
)

func TestSignatureVerify(t *testing.T) {
	body := []byte(`{"zen":"Design for failure."}`)
	v := newSignatureVerifier(testSecret)
	good := signature(testSecret, body)
	tests := []struct {
		name string
		sig  string
		sha1 bool
		want error
	}{
		{"valid", good, false, nil},
		{"valid, upper-case hex", "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256=")), false, nil},
		{"valid, SHA-1 header too", good, true, nil},
		{"missing", "", false, errSignatureMissing},
		{"SHA-1 only", "", true, errSignatureSHA1Only},
		{"no prefix", strings.TrimPrefix(good, "sha256="), false, errSignatureMalformed},
		{"upper-case prefix", "SHA256=" + strings.TrimPrefix(good, "sha256="), false, errSignatureMalformed},
		{"short", good[:len(good)-2], false, errSignatureMalformed},
		{"long", good + "00", false, errSignatureMalformed},
		{"not hex", good[:len(good)-1] + "g", false, errSignatureMalformed},
		{"wrong", signature([]byte("other"), body), false, errSignatureMismatch},
		{"last digit off", good[:len(good)-1] + otherHexDigit(good[len(good)-1]), false, errSignatureMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := v.verify(tt.sig, tt.sha1, body); !errors.Is(err, tt.want) {
				t.Errorf("verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSignatureVerifierCopiesSecret(t *testing.T) {
	secret := []byte("secret")
	v := newSignatureVerifier(secret)
	body := []byte(`{}`)
	sig := signature([]byte("secret"), body)
	secret[0] = 'X'
	if err := v.verify(sig, false, body); err != nil {
		t.Errorf("verify after the caller changed its secret slice: %v", err)
	}
}

func otherHexDigit(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}
