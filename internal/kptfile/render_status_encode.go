package kptfile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// splicedFrom is the number of results in a render status from which
// marshalStatus writes the result lists apart. The YAML encoder keeps
// every event of a document until it ends, so one Kptfile holding
// thousands of results costs it several times what as many small
// documents do (a render of 1,000 resources by set-namespace v0.4.1 and
// set-annotations records some 3,000 results: 80 ms of the encoder's for
// one render, against a few ms).
const splicedFrom = 64

// resultChunk is how many results the encoder writes per document when
// they are written apart.
const resultChunk = 128

// marshalStatus is Marshal(k), byte for byte, for a Kptfile whose render
// status may list many results: the Kptfile is marshaled with a
// placeholder in each result list, and the lists are written in at the
// placeholder's indentation, a plain message and severity directly, any
// other result by the encoder, a chunk of them per document (an encoder
// that writes no line longer than it must writes a nested sequence as it
// writes one at the top, indented). For few results it is Marshal(k).
func marshalStatus(k *Kptfile) ([]byte, error) {
	out, _, err := marshalSpliced(k)
	return out, err
}

// marshalSpliced is marshalStatus, and whether it wrote the lists apart.
func marshalSpliced(k *Kptfile) (out []byte, spliced bool, err error) {
	whole := func() ([]byte, bool, error) {
		out, err := Marshal(k)
		return out, false, err
	}
	if k.Status == nil || k.Status.RenderStatus == nil {
		return whole()
	}
	rs := *k.Status.RenderStatus
	rs.MutationSteps, rs.ValidationSteps = slices.Clone(rs.MutationSteps), slices.Clone(rs.ValidationSteps)
	var lists [][]*framework.Result
	n := 0
	for _, steps := range [][]PipelineStepResult{rs.MutationSteps, rs.ValidationSteps} {
		for i := range steps {
			for _, l := range []*[]*framework.Result{&steps[i].Results, &steps[i].ErrorResults} {
				if len(*l) == 0 {
					continue
				}
				n += len(*l)
				lists = append(lists, *l)
				*l = []*framework.Result{{Message: placeholder(len(lists) - 1)}}
			}
		}
	}
	if n < splicedFrom {
		return whole()
	}
	kk, st := *k, *k.Status
	st.RenderStatus = &rs
	kk.Status = &st
	out, err = Marshal(&kk)
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	b.Grow(len(out) + 96*n)
	rest := out
	for i, l := range lists {
		needle := []byte("- message: " + placeholder(i) + "\n")
		at := bytes.Index(rest, needle)
		if at < 0 || bytes.Count(out, needle) != 1 {
			return whole() // a message of the file's own holds the placeholder
		}
		start := bytes.LastIndexByte(rest[:at], '\n') + 1
		indent := rest[start:at]
		if len(bytes.Trim(indent, " ")) != 0 {
			return whole()
		}
		b.Write(rest[:start])
		if err := writeResults(&b, indent, l); err != nil {
			return nil, false, err
		}
		rest = rest[at+len(needle):]
	}
	b.Write(rest)
	return b.Bytes(), true, nil
}

// writeResults writes l as the encoder writes it as a sequence at indent.
func writeResults(b *bytes.Buffer, indent []byte, l []*framework.Result) error {
	for i := 0; i < len(l); {
		if r := l[i]; plainResult(r) {
			b.Write(indent)
			b.WriteString("- message: ")
			b.WriteString(r.Message)
			b.WriteByte('\n')
			if r.Severity != "" {
				b.Write(indent)
				b.WriteString("  severity: ")
				b.WriteString(string(r.Severity))
				b.WriteByte('\n')
			}
			i++
			continue
		}
		j := i + 1
		for j < len(l) && j-i < resultChunk && !plainResult(l[j]) {
			j++
		}
		out, err := yaml.MarshalWithOptions(l[i:j], &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
		if err != nil {
			return fmt.Errorf("kptfile: marshal results: %w", err)
		}
		for len(out) > 0 {
			line := out
			if k := bytes.IndexByte(out, '\n'); k >= 0 {
				line = out[:k+1]
			}
			if line[0] != '\n' {
				b.Write(indent)
			}
			b.Write(line)
			out = out[len(line):]
		}
		i = j
	}
	return nil
}

// placeholderNonce makes the placeholders of this process unlike any
// message a function wrote.
var placeholderNonce = fmt.Sprintf("%016x", rand.Uint64())

func placeholder(i int) string { return fmt.Sprintf("porchbot-results-%s-%d", placeholderNonce, i) }

// plainResult reports whether the encoder writes r as a plain message and
// severity, nothing else: both plain scalars (plainScalar).
func plainResult(r *framework.Result) bool {
	return r != nil && r.ResourceRef == nil && r.Field == nil && r.File == nil && len(r.Tags) == 0 &&
		plainScalar(r.Message) && (r.Severity == "" || plainScalar(string(r.Severity)))
}

// plainScalar reports whether the YAML encoder writes s as it is, a plain
// scalar in block context, conservatively: a letter first; then printable
// ASCII without ':' or '#' (which can start an indicator); no trailing
// space; and no word YAML reads as a boolean or null.
func plainScalar(s string) bool {
	if s == "" || !isLetter(s[0]) || s[len(s)-1] == ' ' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == ':' || c == '#' {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "y", "yes", "n", "no", "on", "off":
		return false
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
