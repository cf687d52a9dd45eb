package ingress

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceEnvelope is parseEnvelope's specification, written with
// encoding/json: the body must be valid JSON whose top level is an object;
// action and repository.full_name must be strings or null, installation.id
// an integer or null, installation and repository objects or null. Keys
// match exactly after unescaping; the last of repeated keys wins.
func referenceEnvelope(body []byte) (envelope, bool) {
	var env envelope
	if !json.Valid(body) || !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		return env, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return env, false
	}
	str := func(raw json.RawMessage, dst *string) bool {
		var s *string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		if s != nil {
			*dst = *s
		}
		return true
	}
	obj := func(raw json.RawMessage) (map[string]json.RawMessage, bool) {
		var m map[string]json.RawMessage
		return m, json.Unmarshal(raw, &m) == nil
	}
	if raw, ok := top["action"]; ok && !str(raw, &env.action) {
		return env, false
	}
	if raw, ok := top["installation"]; ok {
		inst, ok := obj(raw)
		if !ok {
			return env, false
		}
		if raw, ok := inst["id"]; ok {
			var id *int64
			if json.Unmarshal(raw, &id) != nil {
				return env, false
			}
			if id != nil {
				env.installationID = *id
			}
		}
	}
	if raw, ok := top["repository"]; ok {
		repo, ok := obj(raw)
		if !ok {
			return env, false
		}
		if raw, ok := repo["full_name"]; ok && !str(raw, &env.repo) {
			return env, false
		}
	}
	return env, true
}

var envelopeCases = []struct {
	name string
	body string
	want envelope
	ok   bool
}{
	{"empty object", `{}`, envelope{}, true},
	{"all fields", `{"action":"opened","installation":{"id":42,"node_id":"x"},"repository":{"id":1,"full_name":"o/r"}}`,
		envelope{action: "opened", installationID: 42, repo: "o/r"}, true},
	{"whitespace", " \r\n\t{ \"action\" : \"a\" } \n", envelope{action: "a"}, true},
	{"nulls", `{"action":null,"installation":null,"repository":{"full_name":null}}`, envelope{}, true},
	{"nested keys do not count", `{"pull_request":{"action":"x","repository":{"full_name":"no/no"}},"installation":{"account":{"id":9}}}`, envelope{}, true},
	{"last key wins", `{"repository":{"full_name":"a/a"},"repository":{"full_name":"b/b"}}`, envelope{repo: "b/b"}, true},
	{"later null resets", `{"installation":{"id":5},"installation":null}`, envelope{}, true},
	{"escaped value", `{"repository":{"full_name":"o\/r\u00e9"}}`, envelope{repo: "o/ré"}, true},
	{"escaped key", `{"\u0061ction":"x"}`, envelope{action: "x"}, true},
	{"keys are case-sensitive", `{"Action":"x"}`, envelope{}, true},
	{"negative id", `{"installation":{"id":-3}}`, envelope{installationID: -3}, true},
	{"deep nesting", `{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`, envelope{}, true},
	{"every kind of value", `{"a":[true,false,null,0,-0.5e+3,1E2,"s\"\\\/\b\f\n\r\t\u12aB",{}],"b":{"c":[]}}`, envelope{}, true},

	{"empty", ``, envelope{}, false},
	{"only space", `  `, envelope{}, false},
	{"array", `[{"action":"x"}]`, envelope{}, false},
	{"string", `"x"`, envelope{}, false},
	{"null", `null`, envelope{}, false},
	{"truncated", `{"action":"x"`, envelope{}, false},
	{"trailing garbage", `{} x`, envelope{}, false},
	{"two objects", `{}{}`, envelope{}, false},
	{"trailing comma", `{"a":1,}`, envelope{}, false},
	{"single quotes", `{'a':1}`, envelope{}, false},
	{"unquoted key", `{a:1}`, envelope{}, false},
	{"leading zero", `{"a":01}`, envelope{}, false},
	{"bare minus", `{"a":-}`, envelope{}, false},
	{"bad fraction", `{"a":1.}`, envelope{}, false},
	{"bad exponent", `{"a":1e}`, envelope{}, false},
	{"control char in string", "{\"a\":\"x\ty\"}", envelope{}, false},
	{"bad escape", `{"a":"\x"}`, envelope{}, false},
	{"short unicode escape", `{"a":"\u12"}`, envelope{}, false},
	{"bad literal", `{"a":tru}`, envelope{}, false},
	{"action not a string", `{"action":1}`, envelope{}, false},
	{"installation not an object", `{"installation":42}`, envelope{}, false},
	{"installation id a string", `{"installation":{"id":"42"}}`, envelope{}, false},
	{"installation id a float", `{"installation":{"id":4.2}}`, envelope{}, false},
	{"installation id an exponent", `{"installation":{"id":1e3}}`, envelope{}, false},
	{"installation id overflows", `{"installation":{"id":9223372036854775808}}`, envelope{}, false},
	{"repository an array", `{"repository":[]}`, envelope{}, false},
	{"full_name an object", `{"repository":{"full_name":{}}}`, envelope{}, false},
	{"too deep", `{"a":` + strings.Repeat("[", maxNestingDepth) + strings.Repeat("]", maxNestingDepth) + `}`, envelope{}, false},
}

func TestParseEnvelope(t *testing.T) {
	for _, tt := range envelopeCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEnvelope([]byte(tt.body))
			if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
				t.Errorf("parseEnvelope = %+v, %v; want %+v, ok %v", got, err, tt.want, tt.ok)
			}
			ref, refOK := referenceEnvelope([]byte(tt.body))
			if refOK != tt.ok || ref != tt.want {
				t.Errorf("reference disagrees with the case: %+v, %v", ref, refOK)
			}
		})
	}
}

func TestParseEnvelopeRealPayloads(t *testing.T) {
	for _, f := range loadPayloads(t) {
		got, err := parseEnvelope(f.body)
		want, ok := referenceEnvelope(f.body)
		if err != nil || !ok || got != want {
			t.Errorf("%s/%s: parseEnvelope = %+v, %v; reference %+v, %v", f.event, f.name, got, err, want, ok)
		}
	}
}

// FuzzParseEnvelope checks parseEnvelope against its encoding/json
// reference: go test -fuzz FuzzParseEnvelope ./bot/ingress/
func FuzzParseEnvelope(f *testing.F) {
	for _, tt := range envelopeCases {
		f.Add([]byte(tt.body))
	}
	f.Add([]byte("{\"a\":\"\xff\xfe\"}"))
	f.Add([]byte(`{"repository":{"full_name":"\ud800"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseEnvelope(body)
		want, ok := referenceEnvelope(body)
		if (err == nil) != ok {
			t.Fatalf("parseEnvelope(%q) error = %v, reference ok = %v", body, err, ok)
		}
		if ok && got != want {
			t.Fatalf("parseEnvelope(%q) = %+v, reference %+v", body, got, want)
		}
	})
}

// TestStringSpecialMaskFirstByte checks that the lowest flag of
// stringSpecialMask is the first control character, '"' or '\\' of the
// word, on random words biased towards the interesting bytes.
func TestStringSpecialMaskFirstByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	interesting := []byte{0x00, 0x1f, 0x20, 0x21, '"', '\\', '#', '[', ']', 0x7f, 0x80, 0x9f, 0xa0, 0xff}
	var word [8]byte
	for range 1_000_000 {
		first := 8
		for i := range word {
			if rng.IntN(2) == 0 {
				word[i] = interesting[rng.IntN(len(interesting))]
			} else {
				word[i] = byte(rng.Uint32())
			}
			if first == 8 && !stringPlain[word[i]] {
				first = i
			}
		}
		m := stringSpecialMask(binary.LittleEndian.Uint64(word[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if got != first {
			t.Fatalf("word % x: first special byte %d, mask says %d", word, first, got)
		}
	}
}
