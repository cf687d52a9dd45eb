package builtins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kubevalRelease is what differs between kubeval's catalog releases, all
// TypeScript (functions/ts/kubeval) around kubeval v0.16.1, each resource
// handed to its own kubeval process as JSON, kubeval's JSON output parsed
// back. When the config names no schema location the image makes the
// schemas from an OpenAPI document it bundles (porchbot's server schema
// directory stands in for them).
type kubevalRelease struct {
	version string
	// quiet: kubeval runs with --quiet (v0.1.1 on), and the function
	// recognizes its missing-schema error; v0.1.0 sees kubeval's
	// "WARN - Set to ignore missing schemas" line and its missing-schema
	// error as output that is not JSON
	quiet bool
	// logToStderr: the image sets LOG_TO_STDERR (v0.1.0), so the SDK also
	// prints each result on stderr
	logToStderr bool
	// dottedGroups: the image makes the schemas of groups with a dot
	// (networking.k8s.io) too (v0.2.0 on); v0.1.x's openapi2jsonschema
	// matches a kind's apiVersion against the group of its OpenAPI name
	// (networking), which never has one
	dottedGroups bool
	// bundled says whether the image's OpenAPI document has a kind that
	// porchbot's schemas may well lack (the Kptfile from v0.2.1, Config
	// Connector's kinds from v0.2.0): such a resource is refused rather
	// than reported without a schema
	bundled func(group, kind string) bool
}

// kubevalReleaseOf is the behaviour of one kubeval release.
func kubevalReleaseOf(version string) *kubevalRelease {
	kv := &kubevalRelease{version: version, quiet: version != "v0.1.0", logToStderr: version == "v0.1.0"}
	if version >= "v0.2.0" {
		kv.dottedGroups = true
		kptfile := version >= "v0.2.1"
		kv.bundled = func(group, kind string) bool {
			return strings.HasSuffix(group, ".cnrm.cloud.google.com") || kptfile && group == "kpt.dev" && kind == "Kptfile"
		}
	}
	return kv
}

func kubevalReleases(versions ...string) []release {
	var out []release
	for _, v := range versions {
		out = append(out, validatorReleases(kubevalReleaseOf(v), v)...)
	}
	return out
}

// errKubevalBundled is a resource whose schema the release's image has and
// porchbot does not.
var errKubevalBundled = errors.New("the schema is in the image")

// process validates the resources as the TypeScript function does: in its
// SDK's order (which also keeps one resource per key in its output), each
// as kubeval reports it.
func (kv *kubevalRelease) process(s *schemaSet, rl *framework.ResourceList, stderr io.Writer) error {
	rl.Items = kubevalOrder(rl.Items)
	for _, it := range rl.Items {
		results, err := kv.object(s, it)
		if err != nil {
			return kv.fail(rl, objectResult(err.Error(), framework.Error, it))
		}
		rl.Results = append(rl.Results, results...)
	}
	var log strings.Builder
	if kv.logToStderr {
		for _, r := range rl.Results {
			log.WriteString(kubevalResultLine(r) + "\n")
		}
	}
	if len(rl.Results) > 0 {
		return Failure{Stderr: log.String()}
	}
	for _, it := range rl.Items {
		jsyamlStyle(it.YNode(), false) // the SDK writes the resources back
	}
	return nil
}

// fail reports a resource porchbot cannot validate as the release would.
func (kv *kubevalRelease) fail(rl *framework.ResourceList, r *framework.Result) error {
	rl.Results = append(rl.Results, r)
	return Failure{}
}

// kubevalResultLine is a result as the SDK prints it with LOG_TO_STDERR.
func kubevalResultLine(r *framework.Result) string {
	s := "[" + strings.ToUpper(string(r.Severity)) + "] " + r.Message
	if ref := r.ResourceRef; ref != nil {
		s += fmt.Sprintf(" in object '%s/%s/%s/%s'", ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
	}
	if r.File != nil && r.File.Path != "" {
		s += " in file " + r.File.Path
	}
	if r.Field != nil && r.Field.Path != "" {
		s += " in field " + r.Field.Path
	}
	return s
}

// kubevalOrder is the TypeScript SDK's order: by
// apiVersion/kind/namespace/name, the last of several with one key
// standing for them all.
func kubevalOrder(items []*yaml.RNode) []*yaml.RNode {
	byKey := map[string]*yaml.RNode{}
	var keys []string
	for _, it := range items {
		k := strings.Join([]string{getString(it, yaml.APIVersionField), getString(it, yaml.KindField),
			getString(it, yaml.MetadataField, yaml.NamespaceField), getString(it, yaml.MetadataField, yaml.NameField)}, "/")
		if _, dup := byKey[k]; !dup {
			keys = append(keys, k)
		}
		byKey[k] = it
	}
	slices.Sort(keys)
	out := make([]*yaml.RNode, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// kubevalOutput is one resource's entry in kubeval's JSON output.
type kubevalOutput struct {
	Filename string   `json:"filename"`
	Kind     string   `json:"kind"`
	Status   string   `json:"status"`
	Errors   []string `json:"errors"`
}

// object is what the function reports of one resource: kubeval's output
// for it, as the function reads it.
func (kv *kubevalRelease) object(s *schemaSet, it *yaml.RNode) ([]*framework.Result, error) {
	apiVersion, kind := getString(it, yaml.APIVersionField), getString(it, yaml.KindField)
	out := kubevalOutput{Filename: "stdin", Kind: kind, Status: "skipped", Errors: []string{}}
	if !s.cfg.skipKinds[kind] {
		errs, missing, err := kv.validate(s, apiVersion, kind, it)
		if err != nil {
			return nil, err
		}
		switch {
		case missing != "" && !s.cfg.ignoreMissing:
			return kv.unparsable(s, missing, it), nil
		case missing == "" && len(errs) > 0:
			out.Status, out.Errors = "invalid", errs
		case missing == "":
			out.Status = "valid"
		}
	}
	if !kv.quiet && s.cfg.ignoreMissing {
		return []*framework.Result{kubevalParseFailure("W", "WARN - Set to ignore missing schemas\n"+kubevalJSON(out), it)}, nil
	}
	var results []*framework.Result
	for _, e := range out.Errors {
		path, msg, found := strings.Cut(e, ":")
		if !found {
			results = append(results, objectResult(e, framework.Error, it))
			continue
		}
		r := objectResult(strings.TrimSpace(msg), framework.Error, it)
		r.Field = &framework.Field{Path: path}
		results = append(results, r)
	}
	return results, nil
}

// unparsable is a resource kubeval has no schema for: kubeval prints an
// error line per location it looked in; v0.1.1 on recognize it, v0.1.0
// fails to parse it as JSON.
func (kv *kubevalRelease) unparsable(s *schemaSet, missing string, it *yaml.RNode) []*framework.Result {
	if !kv.quiet {
		return []*framework.Result{kubevalParseFailure("E", missing, it)}
	}
	return []*framework.Result{objectResult("Validating arbitrary CRDs is not supported yet. You can skip them by setting "+
		"ignore_missing_schemas or skip_kinds in the function config:\n"+missing, framework.Error, it)}
}

// kubevalParseFailure is the function's result for kubeval output that is
// not JSON, which starts with the character first (Node 14's JSON.parse
// error).
func kubevalParseFailure(first, raw string, it *yaml.RNode) *framework.Result {
	return objectResult("Failed to parse raw kubeval output:\nUnexpected token "+first+" in JSON at position 0\n\n"+raw, framework.Error, it)
}

// kubevalJSON is kubeval's JSON output for one resource.
func kubevalJSON(out kubevalOutput) string {
	b, _ := json.Marshal([]kubevalOutput{out})
	var buf bytes.Buffer
	_ = json.Indent(&buf, b, "", "\t")
	return buf.String() + "\n"
}

// validate is kubeval's validation of one resource: gojsonschema's errors
// ("field: description"), or, when no location has its schema, kubeval's
// error lines saying so.
func (kv *kubevalRelease) validate(s *schemaSet, apiVersion, kind string, it *yaml.RNode) (errs []string, missing string, err error) {
	locs := s.locs
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = ""
	}
	imageSchemas := len(s.cfg.locations) == 0
	if imageSchemas && !kv.dottedGroups && strings.Contains(group, ".") {
		locs = nil // v0.1's image makes no schema for such a group
	}
	schema, err := s.findIn(locs, apiVersion, kind)
	if errors.Is(err, errNoSchema) {
		if imageSchemas && kv.bundled != nil && kv.bundled(group, kind) {
			return nil, "", fmt.Errorf("kubeval %s validates %s (%s) against the schema its image makes from the OpenAPI document it "+
				"bundles, which porchbot does not have and does not fetch: put its schema (%s) in the server's schema directory, "+
				"name a schema_location inside the package that has it, or skip the kind (skip_kinds): %w",
				kv.version, kind, apiVersion, schemaFile("master", s.cfg.strict, apiVersion, kind), errKubevalBundled)
		}
		return nil, kubevalMissing(s, apiVersion, kind), nil
	}
	if err != nil {
		return nil, "", err
	}
	g := &gojsonschema{root: schema.doc}
	vs, err := g.validate(gojsonschemaDocument(jsonValue(it.YNode())))
	if err != nil {
		return nil, "", fmt.Errorf("kubeval %s: porchbot does not check the schema of %s as kubeval does: %w", kv.version, kind, err)
	}
	for _, v := range vs {
		errs = append(errs, v.String())
	}
	return errs, "", nil
}

// kubevalMissing is kubeval's error for a resource no location has a
// schema for: one line per location, the first naming the resource's
// source (stdin).
func kubevalMissing(s *schemaSet, apiVersion, kind string) string {
	bases := s.cfg.locations
	if len(bases) == 0 {
		bases = []string{"file:///tmp"} // where the image writes the schemas it makes
	}
	lines := make([]string, 0, len(bases))
	for _, base := range bases {
		url := strings.TrimSuffix(base, "/") + "/" + schemaFile(s.cfg.k8sVersion, s.cfg.strict, apiVersion, kind)
		lines = append(lines, "Failed initializing schema "+url+": open "+strings.TrimPrefix(url, "file://")+": no such file or directory")
	}
	return "ERR  - stdin: " + strings.Join(lines, "\n") + "\n"
}
