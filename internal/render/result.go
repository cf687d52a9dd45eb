package render

import (
	"bytes"
	"encoding/json"
	"time"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FunctionResultList is kpt's kpt.dev/v1 FunctionResultList: one item per
// function run, in order, and the overall exit code.
type FunctionResultList struct {
	APIVersion string             `yaml:"apiVersion" json:"apiVersion"`
	Kind       string             `yaml:"kind" json:"kind"`
	Metadata   ResultListMetadata `yaml:"metadata" json:"metadata"`
	ExitCode   int                `yaml:"exitCode" json:"exitCode"`
	Items      []FunctionResult   `yaml:"items,omitempty" json:"items,omitempty"`
}

// ResultListMetadata is the list's metadata (kpt always names it fnresults).
type ResultListMetadata struct {
	Name string `yaml:"name" json:"name"`
}

// FunctionResult is one function's entry: which function, its exit code,
// stderr when it failed, and the structured results it reported.
type FunctionResult struct {
	Image    string              `yaml:"image,omitempty" json:"image,omitempty"`
	ExecPath string              `yaml:"exec,omitempty" json:"exec,omitempty"`
	Stderr   string              `yaml:"stderr,omitempty" json:"stderr,omitempty"`
	ExitCode int                 `yaml:"exitCode" json:"exitCode"`
	Results  []*framework.Result `yaml:"results,omitempty" json:"results,omitempty"`
}

func newResultList() FunctionResultList {
	return FunctionResultList{APIVersion: "kpt.dev/v1", Kind: "FunctionResultList",
		Metadata: ResultListMetadata{Name: "fnresults"}}
}

// YAML encodes the list as kpt writes results.yaml (wide sequence indent).
func (l FunctionResultList) YAML() ([]byte, error) {
	var buf bytes.Buffer
	e := yaml.NewEncoderWithOptions(&buf, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err := e.Encode(l); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// JSON encodes the list as indented JSON.
func (l FunctionResultList) JSON() ([]byte, error) {
	return json.MarshalIndent(l, "", "  ")
}

// StepKind says whether a step mutates or validates.
type StepKind string

// Step kinds.
const (
	Mutator   StepKind = "mutator"
	Validator StepKind = "validator"
)

// StepStatus is the outcome of one function.
type StepStatus string

// Step outcomes.
const (
	StepOK      StepStatus = "ok"
	StepFailed  StepStatus = "failed"
	StepSkipped StepStatus = "skipped"
)

// Step is one function of the render as a check run shows it.
type Step struct {
	// Package is the package path relative to the rendered root ("." for the root).
	Package string `json:"package"`
	// Name is the function's `name` in the Kptfile, if any.
	Name  string `json:"name,omitempty"`
	Image string `json:"image,omitempty"`
	Exec  string `json:"exec,omitempty"`
	// Guardrail marks a repository-wide function (Options.ExtraMutators/ExtraValidators).
	Guardrail bool          `json:"guardrail,omitempty"`
	Kind      StepKind      `json:"kind"`
	Status    StepStatus    `json:"status"`
	Duration  time.Duration `json:"duration"`
	// Message explains a failure or a skip in one line.
	Message string `json:"message,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
	// ExitCode is a failed function's exit code (as in results.yaml).
	ExitCode int                 `json:"exitCode,omitempty"`
	Results  []*framework.Result `json:"results,omitempty"`
	// Selected is how many resources a function with selectors or
	// exclusions was given, as kpt's "[RUNNING] … on N resource(s)" says
	// (nil for a function without them, or one that did not run).
	Selected *int `json:"selected,omitempty"`
	// Release is the catalog release a built-in ran as ("v0.4.1"), as kpt
	// records the version it resolved ("" for an exec function, or an
	// image porchbot could not tie to a release).
	Release string `json:"release,omitempty"`
	// ReleaseNote says how a reference naming no one release (latest, no
	// tag) was resolved, and where kpt may pull another release.
	ReleaseNote string `json:"releaseNote,omitempty"`

	// written is the image as kpt's render status records it (expanded
	// under the release's registry, at the tag a `tag` field resolved to)
	written string
}

// Function returns the step's image or exec line.
func (s Step) Function() string {
	if s.Image != "" {
		return s.Image
	}
	return s.Exec
}

// Result is the outcome of a render.
type Result struct {
	// Results is kpt's FunctionResultList for the run (skipped functions appear
	// with exit code 0 and a warning saying why).
	Results FunctionResultList `json:"results"`
	// Steps has one entry per function considered, in execution order.
	Steps []Step `json:"steps"`
	// Changed lists files written (created or modified), slash-separated and
	// relative to the package; Deleted lists files removed. Both are sorted and
	// empty unless the render succeeded completely (or SavedOnFailure).
	Changed []string `json:"changed,omitempty"`
	Deleted []string `json:"deleted,omitempty"`
	// SavedOnFailure: the render failed and, as the root Kptfile's
	// kpt.dev/save-on-render-failure asked (a kpt release that reads it),
	// what it had rendered up to the failure was written: Changed lists
	// those files, and no file was deleted.
	SavedOnFailure bool `json:"savedOnFailure,omitempty"`
	// BreadthFirst: the packages rendered top-down, as the root Kptfile's
	// kpt.dev/bfs-rendering asked.
	BreadthFirst bool `json:"breadthFirst,omitempty"`
	// Packages is the number of packages rendered (the root and its subpackages).
	Packages int `json:"packages"`
	// Kpt is the kpt release whose render this one reproduced.
	Kpt KptRelease `json:"kpt"`

	// how functions ran (tests look at it)
	stats runStats
}

type runStats struct {
	inMemory   int  // in process, no serialization
	inPlace    int  // of those, on the input itself (no copy)
	replays    int  // renders started again with copies (errReplay)
	compacted  bool // the resources were copied into slabs (compact)
	roundTrip  int  // in process, output serialized (comments in the output)
	serialized int  // through a serialized ResourceList
	// in-memory resources whose comments kpt's comment copy had to restore
	commentCopy int
	// outputs with a header comment read back on their own
	headerTrip int
}

// Skipped reports the steps that did not run (exec functions when exec is not
// allowed). A render with skipped steps is incomplete: it writes nothing and
// must not be reported as a success.
func (r *Result) Skipped() []Step {
	var out []Step
	for _, s := range r.Steps {
		if s.Status == StepSkipped {
			out = append(out, s)
		}
	}
	return out
}

// Failed reports whether a function failed or could not be run.
func (r *Result) Failed() bool {
	if r.Results.ExitCode != 0 {
		return true
	}
	for _, s := range r.Steps {
		if s.Status == StepFailed {
			return true
		}
	}
	return false
}

// Complete reports whether every function ran and passed.
func (r *Result) Complete() bool { return !r.Failed() && len(r.Skipped()) == 0 }
