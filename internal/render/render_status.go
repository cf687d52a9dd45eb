package render

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	kfile "github.com/porchbot/porchbot/internal/kptfile"
)

// handledError is kpt's reason for a render that failed in a function:
// the function's own output already said why.
const handledError = "already handled error"

// writeRenderStatus records the render in the root Kptfile as kpt
// v1.0.0-beta.67 does, on success and on failure: the Rendered condition
// (True, RenderSuccess; or False, RenderFailed and kpt's message) and
// status.renderStatus, one entry per function of the tree in the order
// they ran (porchbot's repository guardrails and skipped functions are no
// pipeline's, and are left out). A root Kptfile that cannot be read or
// parsed is left as it is, as kpt leaves it. On success the Kptfile joins
// the files the render changed. A Kptfile or function config kpt refuses
// records nothing, as kpt.
func writeRenderStatus(fsys filesys.FileSystem, root string, res *Result, renderErr error) error {
	path := filepath.Join(root, kfile.FileName)
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil
	}
	var kerr *KptfileError
	var verr *ValidateError
	var perr *PackageError
	if !errors.As(renderErr, &perr) && (errors.As(renderErr, &kerr) || errors.As(renderErr, &verr)) {
		return nil // kpt finds a Kptfile or a function config it cannot use before any function: it writes no status
	}
	rs, failed := renderStatusOf(res.Steps)
	cond := kfile.Condition{Type: kfile.ConditionRendered, Status: kfile.ConditionTrue, Reason: kfile.ReasonRenderSuccess}
	if renderErr != nil && !errors.Is(renderErr, ErrIncomplete) {
		cond = kfile.Condition{Type: kfile.ConditionRendered, Status: kfile.ConditionFalse, Reason: kfile.ReasonRenderFailed,
			Message: renderFailedMessage(failed, renderErr)}
		if rs != nil {
			rs.Summarize()
		}
	}
	out, err := kfile.WriteRenderStatus(data, cond, rs)
	if err != nil {
		return nil // a Kptfile kpt could not read either: no status
	}
	if string(out) == string(data) {
		return nil
	}
	if err := fsys.WriteFile(path, out); err != nil {
		return fmt.Errorf("write the render status to %s: %w", kfile.FileName, err)
	}
	if renderErr == nil && !slices.Contains(res.Changed, kfile.FileName) {
		res.Changed = append(res.Changed, kfile.FileName)
		slices.Sort(res.Changed)
	}
	return nil
}

// renderStatusOf is kpt's renderStatus of steps (nil when no function
// ran), and the step that failed, if one did.
func renderStatusOf(steps []Step) (*kfile.RenderStatus, *Step) {
	rs := &kfile.RenderStatus{}
	var failed *Step
	for i := range steps {
		s := &steps[i]
		if s.Guardrail || s.Status == StepSkipped {
			continue
		}
		r := kfile.PipelineStepResult{Name: s.Name, Image: s.written, ExecPath: s.Exec}
		if s.Status == StepFailed {
			failed = s
			r.ExitCode = max(s.ExitCode, 1)
			if s.ExitCode == 0 && len(s.Results) == 0 {
				r.ExecutionError = s.Message // it never ran
			} else {
				r.Stderr = strings.TrimSpace(s.Stderr)
			}
		}
		if r.ExecutionError == "" {
			r.Results = s.Results
			for _, res := range s.Results {
				if res != nil && res.Severity == framework.Error {
					r.ErrorResults = append(r.ErrorResults, res)
				}
			}
		}
		if s.Kind == Validator {
			rs.ValidationSteps = append(rs.ValidationSteps, r)
		} else {
			rs.MutationSteps = append(rs.MutationSteps, r)
		}
	}
	if len(rs.MutationSteps)+len(rs.ValidationSteps) == 0 {
		return nil, failed
	}
	return rs, failed
}

// renderFailedMessage is kpt's message of a failed render: the package
// whose pipeline failed ("." the root, "./sub" a subpackage), and either
// "already handled error" (a function that ran and failed said why
// itself) or why the function could not run; any other failure is its
// error, after the package it happened in.
func renderFailedMessage(failed *Step, err error) string {
	if failed == nil {
		var pe *PackageError
		if errors.As(err, &pe) {
			text := pe.Err.Error()
			var ve *ValidateError
			if errors.As(pe.Err, &ve) {
				text = ve.KptText()
			}
			return "pkg.render: pkg " + kptPackagePath(pe.Package) + ": " + text
		}
		return "pkg.render: pkg .: " + err.Error()
	}
	reason := handledError
	if failed.ExitCode == 0 && len(failed.Results) == 0 && failed.Message != "" {
		reason = failed.Message
	}
	return "pkg.render: pkg " + kptPackagePath(failed.Package) + ":\n\tpipeline.run: " + reason
}

// kptPackagePath is a package's path as kpt's messages write it: "." the
// root, "./sub" a subpackage.
func kptPackagePath(rel string) string {
	if rel == "." || rel == "" {
		return "."
	}
	return "./" + rel
}

// PackageError is a render's failure in one package that is no function's
// (a package without a pipeline holding a file that is not KRM, a
// configPath naming no resource of the package): its message is the
// error's alone, as kpt prints it.
type PackageError struct {
	Package string // relative to the root
	Err     error
}

func (e *PackageError) Error() string { return e.Err.Error() }

func (e *PackageError) Unwrap() error { return e.Err }
