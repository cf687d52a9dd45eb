package kptfile

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/strictyaml"
)

// Limits bound a Kptfile: 1 MiB, 32 levels of nesting, 100 000 nodes, no
// anchors or aliases.
var Limits = strictyaml.DefaultLimits

// File is a parsed Kptfile: its YAML document (kept for editing, with its
// comments and field order) and its typed content.
type File struct {
	filename string
	rn       *yaml.RNode // the document node
	orig     []byte
	dirty    bool
	seqStyle string // sequence indentation of the original (kyaml style)
	k        Kptfile
}

// Parse reads a Kptfile strictly: YAML bounded by Limits, apiVersion
// kpt.dev/v1 and kind Kptfile required, unknown fields refused (as kpt
// refuses them), values checked (upstream type and update strategy,
// function image/exec and config, condition statuses, …). Errors are a
// *ValidationError listing every problem as "Kptfile:line:col: message".
func Parse(data []byte) (*File, error) { return ParseFile(FileName, data) }

// ParseFile is Parse with the name errors give the file, such as
// "network/upf/Kptfile".
func ParseFile(filename string, data []byte) (*File, error) {
	doc, err := strictyaml.Parse(filename, data, Limits)
	if err != nil {
		return nil, err
	}
	r := strictyaml.NewReader(filename)
	if doc == nil {
		r.Report(nil, "", "the Kptfile is empty")
		return nil, r.Err()
	}
	k := decode(r, strictyaml.Root(doc))
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &File{
		filename: filename,
		rn:       yaml.NewRNode(doc),
		orig:     bytes.Clone(data),
		seqStyle: yaml.DeriveSeqIndentStyle(string(data)),
		k:        k,
	}, nil
}

// Kptfile is the typed content, kept up to date by the edit methods. It is
// shared with the File: read it, change the file through File's methods.
func (f *File) Kptfile() *Kptfile { return &f.k }

// Name is metadata.name.
func (f *File) Name() string { return f.k.Metadata.Name }

// Description is info.description.
func (f *File) Description() string {
	if f.k.Info == nil {
		return ""
	}
	return f.k.Info.Description
}

// Edited reports whether an edit changed the document since Parse.
func (f *File) Edited() bool { return f.dirty }

// Bytes is the Kptfile's content: the bytes Parse was given when nothing was
// edited, else the document re-serialised by kyaml with its comments, field
// order, scalar styles and sequence indentation kept.
func (f *File) Bytes() ([]byte, error) {
	if !f.dirty {
		return bytes.Clone(f.orig), nil
	}
	var buf bytes.Buffer
	style := yaml.CompactSequenceStyle
	if f.seqStyle == string(yaml.WideSequenceStyle) {
		style = yaml.WideSequenceStyle
	}
	enc := yaml.NewEncoderWithOptions(&buf, &yaml.EncoderOptions{SeqIndent: style})
	if err := enc.Encode(f.rn.Document()); err != nil {
		return nil, fmt.Errorf("kptfile: encode %s: %w", f.filename, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("kptfile: encode %s: %w", f.filename, err)
	}
	return buf.Bytes(), nil
}

// Edit runs fn on a copy of the document (kyaml's RNode, for edits the
// methods of File do not cover) and keeps the result only if it is still a
// valid Kptfile; else the File is unchanged and the problems are returned.
func (f *File) Edit(fn func(doc *yaml.RNode) error) error {
	doc := yaml.NewRNode(yaml.CopyYNode(f.rn.Document()))
	if err := fn(doc); err != nil {
		return err
	}
	r := strictyaml.NewReader(f.filename)
	root := strictyaml.Root(doc.Document())
	if root == nil {
		r.Report(nil, "", "the Kptfile is empty")
		return r.Err()
	}
	k := decode(r, root)
	if err := r.Err(); err != nil {
		return fmt.Errorf("kptfile: edit of %s leaves it invalid: %w", f.filename, err)
	}
	f.rn, f.k, f.dirty = doc, k, true
	return nil
}
