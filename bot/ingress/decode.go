package ingress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"
)

// legacyTimestamp is the layout of timestamps some GitHub payloads still
// carry (for instance the app of a check_run), which go-github's Timestamp,
// expecting RFC 3339, cannot parse. They are UTC.
const legacyTimestamp = "2006-01-02 15:04:05"

// decodePayload decodes raw into the go-github type of event name. When the
// payload holds legacy timestamps, they are rewritten to RFC 3339 and the
// decode retried; this slow path runs only for such payloads.
func decodePayload(name string, raw []byte) (any, error) {
	payload, err := github.ParseWebHook(name, raw)
	if err == nil {
		return payload, nil
	}
	if _, ok := errors.AsType[*time.ParseError](err); !ok {
		return nil, err
	}
	fixed, changed, ferr := normalizeTimestamps(raw)
	if ferr != nil || !changed {
		return nil, err
	}
	payload, rerr := github.ParseWebHook(name, fixed)
	if rerr != nil {
		return nil, fmt.Errorf("%w (after normalising legacy timestamps: %w)", err, rerr)
	}
	return payload, nil
}

// normalizeTimestamps rewrites every string value of raw in the
// legacyTimestamp layout to RFC 3339, keeping numbers exact.
func normalizeTimestamps(raw []byte) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false, err
	}
	doc, changed := rewriteTimestamps(doc)
	if !changed {
		return raw, false, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
}

func rewriteTimestamps(v any) (any, bool) {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e, ok := rewriteTimestamps(e); ok {
				v[k], changed = e, true
			}
		}
	case []any:
		for i, e := range v {
			if e, ok := rewriteTimestamps(e); ok {
				v[i], changed = e, true
			}
		}
	case string:
		if len(v) == len(legacyTimestamp) {
			if t, err := time.Parse(legacyTimestamp, v); err == nil {
				return t.UTC().Format(time.RFC3339), true
			}
		}
	}
	return v, changed
}
