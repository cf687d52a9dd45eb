package kptfile

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// The condition a render writes (kpt v1.0.0-beta.67 and later).
const (
	ConditionRendered   = "Rendered"
	ReasonRenderSuccess = "RenderSuccess"
	ReasonRenderFailed  = "RenderFailed"
)

// RenderStatus is kpt's status.renderStatus: each function the root
// package's render ran, mutators then validators, and on failure a
// summary of the steps that failed.
type RenderStatus struct {
	MutationSteps   []PipelineStepResult `json:"mutationSteps,omitempty" yaml:"mutationSteps,omitempty"`
	ValidationSteps []PipelineStepResult `json:"validationSteps,omitempty" yaml:"validationSteps,omitempty"`
	ErrorSummary    string               `json:"errorSummary,omitempty" yaml:"errorSummary,omitempty"`
}

// PipelineStepResult is one function of a render, as kpt records it: the
// function as the Kptfile names it, why it could not run
// (ExecutionError), its stderr and exit code, its results and, among
// them, its errors.
type PipelineStepResult struct {
	Name           string              `json:"name,omitempty" yaml:"name,omitempty"`
	Image          string              `json:"image,omitempty" yaml:"image,omitempty"`
	ExecPath       string              `json:"exec,omitempty" yaml:"exec,omitempty"`
	ExecutionError string              `json:"executionError,omitempty" yaml:"executionError,omitempty"`
	Stderr         string              `json:"stderr,omitempty" yaml:"stderr,omitempty"`
	ExitCode       int                 `json:"exitCode" yaml:"exitCode"`
	Results        []*framework.Result `json:"results,omitempty" yaml:"results,omitempty"`
	ErrorResults   []*framework.Result `json:"errorResults,omitempty" yaml:"errorResults,omitempty"`
}

// Failed reports whether the step did not succeed.
func (s PipelineStepResult) Failed() bool { return s.ExecutionError != "" || s.ExitCode != 0 }

// label is how kpt names the step in an error summary.
func (s PipelineStepResult) label() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Image != "":
		return s.Image
	}
	return s.ExecPath
}

// Summarize sets ErrorSummary as kpt does for a failed render: one line
// per step that failed, "<step>: <execution error>" or "<step>: exit code
// N".
func (rs *RenderStatus) Summarize() {
	var lines []string
	for _, s := range append(slices.Clone(rs.MutationSteps), rs.ValidationSteps...) {
		switch {
		case s.ExecutionError != "":
			lines = append(lines, s.label()+": "+s.ExecutionError)
		case s.ExitCode != 0:
			lines = append(lines, fmt.Sprintf("%s: exit code %d", s.label(), s.ExitCode))
		}
	}
	rs.ErrorSummary = strings.Join(lines, "\n")
}

// WriteRenderStatus is a Kptfile with the outcome of a render written as
// kpt v1.0.0-beta.67 writes it: its Rendered condition replaced by cond,
// status.renderStatus set to rs (nil: none), and the whole file written
// again from its fields, as kpt writes it (comments and the original
// layout are not kept; sequences indented under their key).
func WriteRenderStatus(data []byte, cond Condition, rs *RenderStatus) ([]byte, error) {
	f, err := Parse(data)
	if err != nil {
		return nil, err
	}
	k := *f.Kptfile()
	st := Status{}
	if k.Status != nil {
		st.Conditions = slices.DeleteFunc(slices.Clone(k.Status.Conditions), func(c Condition) bool { return c.Type == ConditionRendered })
	}
	st.Conditions = append(st.Conditions, cond)
	st.RenderStatus = rs
	k.Status = &st
	return marshalStatus(&k)
}

// ClearRenderStatus drops what a render recorded (the Rendered condition,
// status.renderStatus), as kpt does before it compares a Kptfile with its
// upstream's (a render is not a local change, kpt #4488).
func ClearRenderStatus(k *Kptfile) {
	if k.Status == nil {
		return
	}
	st := *k.Status
	st.RenderStatus, st.HasRenderStatus = nil, false
	st.Conditions = slices.DeleteFunc(slices.Clone(st.Conditions), func(c Condition) bool { return c.Type == ConditionRendered })
	if len(st.Conditions) == 0 {
		st.Conditions = nil
	}
	k.Status = &st
	if len(st.Conditions) == 0 {
		k.Status = nil
	}
}
