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
	"github.com/porchbot/porchbot/internal/strictyaml"
)

// execNotAllowed is kpt's reason for an exec function it was not allowed
// to run.
const execNotAllowed = "must run with `--allow-exec` option to allow running function binaries"

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
	subpkg := ""
	if errors.As(renderErr, &kerr) {
		subpkg = subpackageKptfileMessage(root, kerr)
	}
	if subpkg == "" && !errors.As(renderErr, &perr) && (kerr != nil || errors.As(renderErr, &verr)) {
		return nil // kpt finds a Kptfile or a function config it cannot use before any function: it writes no status
	}
	rs, failed := renderStatusOf(res.Steps)
	cond := kfile.Condition{Type: kfile.ConditionRendered, Status: kfile.ConditionTrue, Reason: kfile.ReasonRenderSuccess}
	if subpkg != "" {
		cond = kfile.Condition{Type: kfile.ConditionRendered, Status: kfile.ConditionFalse, Reason: kfile.ReasonRenderFailed, Message: subpkg}
	} else if renderErr != nil && (!errors.Is(renderErr, ErrIncomplete) || failed != nil) {
		cond = kfile.Condition{Type: kfile.ConditionRendered, Status: kfile.ConditionFalse, Reason: kfile.ReasonRenderFailed,
			Message: renderFailedMessage(failed, renderErr, res.BreadthFirst)}
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
	if (renderErr == nil || res.SavedOnFailure) && !slices.Contains(res.Changed, kfile.FileName) {
		res.Changed = append(res.Changed, kfile.FileName)
		slices.Sort(res.Changed)
	}
	return nil
}

// subpackageKptfileMessage is kpt's message for a subpackage whose Kptfile
// is not valid YAML, found as the root lists its subpackages ("" for any
// other Kptfile problem, which kpt records nothing of).
func subpackageKptfileMessage(root string, kerr *KptfileError) string {
	rel, err := filepath.Rel(root, filepath.Dir(kerr.File))
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	var ve *strictyaml.ValidationError
	if !errors.As(kerr.Err, &ve) {
		return ""
	}
	for _, p := range ve.Problems {
		if strings.HasPrefix(p.Message, "invalid YAML: ") && p.Cause != "" {
			rel = "./" + filepath.ToSlash(rel)
			return fmt.Sprintf("pkg.render: pkg .:\n\tpkg.Subpackages: pkg %s: error reading Kptfile at %q: %s", rel, rel, p.Cause)
		}
	}
	return ""
}

// renderStatusOf is kpt's renderStatus of steps (nil when no function
// ran), and the step that failed, if one did. An exec function skipped
// for want of --allow-exec is, as kpt has it, one that could not run, and
// the last: kpt stops there.
func renderStatusOf(steps []Step) (*kfile.RenderStatus, *Step) {
	rs := &kfile.RenderStatus{}
	var failed *Step
	for i := range steps {
		s := &steps[i]
		if s.Guardrail {
			continue
		}
		if s.Status == StepSkipped {
			if s.Exec == "" {
				continue
			}
			failed = &Step{Package: s.Package, Exec: s.Exec, Kind: s.Kind, Status: StepFailed, Message: execNotAllowed}
			r := kfile.PipelineStepResult{Name: s.Name, ExecPath: s.Exec, ExitCode: 1, ExecutionError: execNotAllowed}
			if s.Kind == Validator {
				rs.ValidationSteps = append(rs.ValidationSteps, r)
			} else {
				rs.MutationSteps = append(rs.MutationSteps, r)
			}
			break
		}
		// a function that passed has what it wrote to stderr recorded as
		// it wrote it; one that failed, trimmed (kpt's exec error)
		r := kfile.PipelineStepResult{Name: s.Name, Image: s.written, ExecPath: s.Exec, Stderr: s.Stderr}
		if s.Status == StepFailed {
			failed = s
			r.ExitCode = max(s.ExitCode, 1)
			if s.ExitCode == 0 && len(s.Results) == 0 {
				r.ExecutionError, r.Stderr = s.Message, "" // it never ran
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
//
// Rendering breadth-first, kpt names the root first and the failed
// package inside: "pkg.render: pkg .:\n\tpipeline.run: pkg ./sub: …".
func renderFailedMessage(failed *Step, err error, breadthFirst bool) string {
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
	if breadthFirst {
		inner := ""
		if p := kptPackagePath(failed.Package); p != "." {
			inner = "pkg " + p + ": "
		}
		return "pkg.render: pkg .:\n\tpipeline.run: " + inner + reason
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
