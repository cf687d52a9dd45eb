package packages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// TrailerPrefix starts the line that carries a Trailer in a commit message.
const TrailerPrefix = "kpt:"

// Task types Porch records (porch api v1alpha1 TaskType).
const (
	TaskInit    = "init"
	TaskClone   = "clone"
	TaskEdit    = "edit"
	TaskUpgrade = "upgrade"
	TaskRender  = "render"
	TaskPush    = "push"
)

// Trailer is the structured line Porch appends to the commits it makes (its
// "gitAnnotation"), so a package's history can be read by tools:
//
//	kpt:{"package":"network/upf","workspaceName":"ws1","revision":"1","task":{"type":"init"}}
//
// The JSON is encoding/json's rendering of the fields below in this order,
// each left out when empty, directly after "kpt:" with no space, as Porch
// writes it; Porch reads any line that starts with "kpt:" once trimmed.
type Trailer struct {
	// Package is the package's path in the repository.
	Package string `json:"package,omitempty"`
	// WorkspaceName is the draft's workspace.
	WorkspaceName string `json:"workspaceName,omitempty"`
	// Revision is the revision number as Porch writes it: decimal without
	// a "v" ("1"; older Porch wrote "v1"; drafts "0" or empty).
	Revision string `json:"revision,omitempty"`
	// Task is the task that made the commit, if any.
	Task *Task `json:"task,omitempty"`
}

// Task is Porch's Task object: its type and, under a key named after the
// type, the type's parameters (e.g. {"type":"init","init":{"description":"…"}}).
// Spec holds those parameters as raw JSON and may be empty.
type Task struct {
	Type string
	Spec json.RawMessage
}

// MarshalJSON writes {"type":T} or {"type":T,"<T>":Spec}.
func (t Task) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	typ, err := json.Marshal(t.Type)
	if err != nil {
		return nil, err
	}
	b.Write(typ)
	if len(t.Spec) > 0 && t.Type != "" && t.Type != "type" {
		key, err := json.Marshal(t.Type)
		if err != nil {
			return nil, err
		}
		var spec bytes.Buffer
		if err := json.Compact(&spec, t.Spec); err != nil {
			return nil, fmt.Errorf("task %s spec: %w", t.Type, err)
		}
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		b.Write(spec.Bytes())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads Porch's object form, and also a bare string (the task
// type alone).
func (t *Task) UnmarshalJSON(data []byte) error {
	var typ string
	if err := json.Unmarshal(data, &typ); err == nil {
		*t = Task{Type: typ}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	*t = Task{}
	if raw, ok := obj["type"]; ok {
		if err := json.Unmarshal(raw, &t.Type); err != nil {
			return fmt.Errorf("task type: %w", err)
		}
	}
	if t.Type != "" && t.Type != "type" {
		if spec, ok := obj[t.Type]; ok && string(spec) != "null" {
			t.Spec = spec
		}
	}
	return nil
}

// String renders the trailer line (without a newline).
func (t Trailer) String() string {
	b, err := json.Marshal(t)
	if err != nil {
		// Only an invalid Task.Spec can fail; leave the spec out rather
		// than write a line Porch cannot read.
		if t.Task != nil {
			t.Task = &Task{Type: t.Task.Type}
		}
		b, _ = json.Marshal(t)
	}
	return TrailerPrefix + string(b)
}

// RevisionNumber reads Revision ("1" or Porch's older "v1"); ok is false
// for drafts ("", "0") and anything else.
func (t Trailer) RevisionNumber() (int, bool) {
	s := strings.TrimPrefix(t.Revision, "v")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || s != strconv.Itoa(n) {
		return 0, false
	}
	return n, true
}

// AppendTrailer returns message with the trailer as its last line, after a
// blank line, as Porch appends it (message + "\n\nkpt:{…}\n"); trailing
// newlines of message are dropped first so the result has exactly one blank
// line before the trailer.
func AppendTrailer(message string, t Trailer) string {
	return strings.TrimRight(message, "\r\n") + "\n\n" + t.String() + "\n"
}

// ParseTrailers returns every trailer in a commit message, in order: each
// line that starts with "kpt:" once surrounding space is trimmed, as Porch
// reads them. Lines whose JSON does not parse are skipped and reported
// together in the error; the trailers that did parse are still returned.
func ParseTrailers(message string) ([]Trailer, error) {
	var (
		out  []Trailer
		errs []error
	)
	for i, line := range strings.Split(message, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, TrailerPrefix)
		if !ok {
			continue
		}
		var t Trailer
		if err := json.Unmarshal([]byte(rest), &t); err != nil {
			errs = append(errs, fmt.Errorf("commit message line %d: invalid kpt trailer: %w", i+1, err))
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

// FindTrailer returns the last valid trailer of a commit message.
func FindTrailer(message string) (Trailer, bool) {
	ts, _ := ParseTrailers(message)
	if len(ts) == 0 {
		return Trailer{}, false
	}
	return ts[len(ts)-1], true
}
