package main

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/strictyaml"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// progress prints kpt fn render's progress lines.
type progress struct {
	w        io.Writer
	root     string // the root package's directory name
	truncate bool
	// stopped is set at the first exec function skipped for want of
	// --allow-exec: kpt stops there, so the progress does too
	stopped bool
	// ended is set once a package has run a function: kpt closes such a
	// package with a blank line when the next starts or the render ends
	ended bool
	// failedStep is the function that failed, its [FAIL] line printed
	failedStep *render.Step
	// oneLine: kpt v1.0.0-beta.67's output (`Package: "name"`, a
	// function's results and stderr on one line each, no blank lines
	// between packages)
	oneLine bool
}

// endPackage prints the blank line that closes a package that ran
// functions.
func (p *progress) endPackage() {
	if p.ended && !p.oneLine {
		fmt.Fprintln(p.w)
		p.ended = false
	}
}

// truncateLines is how many lines of results or stderr kpt shows per
// function unless --truncate-output=false.
const truncateLines = 4

func (p *progress) pkg(rel string) {
	if p.stopped {
		return
	}
	p.endPackage()
	name := filepath.ToSlash(filepath.Join(p.root, rel))
	if p.oneLine {
		fmt.Fprintf(p.w, "Package: %q\n", name)
		return
	}
	fmt.Fprintf(p.w, "Package %q: \n", name)
}

// start prints a function's [RUNNING] line as it starts, as kpt does.
func (p *progress) start(s render.Step) {
	if p.stopped {
		return
	}
	fmt.Fprintf(p.w, "[RUNNING] %q", s.Function())
	if s.Selected != nil {
		fmt.Fprintf(p.w, " on %d resource(s)", *s.Selected)
	}
	fmt.Fprintln(p.w)
}

// step prints how a function ended: [PASS] or [FAIL], its results and
// stderr.
func (p *progress) step(s render.Step) {
	if p.stopped {
		return
	}
	if s.Status == render.StepSkipped {
		p.stopped = true
		return
	}
	d := s.Duration.Truncate(100 * time.Millisecond)
	if s.Status != render.StepFailed {
		fmt.Fprintf(p.w, "[PASS] %q in %s\n", s.Function(), d)
		p.results(s)
		p.ended = true
		return
	}
	fmt.Fprintf(p.w, "[FAIL] %q in %s\n", s.Function(), d)
	if s.ExitCode == 0 && len(s.Results) == 0 && s.Stderr == "" {
		// the function never ran (its input was refused, its output
		// was not KRM): kpt's error line says why
		return
	}
	// the rest waits for the render's error: a program that could not be
	// started has kpt's error line instead
	p.failedStep = &s
}

// failure prints the failed function's results, stderr and exit code.
func (p *progress) failure(s render.Step) {
	p.results(s)
	fmt.Fprintf(p.w, "  Exit code: %d\n\n", exitCodeOf(s))
}

// results prints a function's results and its stderr.
func (p *progress) results(s render.Step) {
	if p.oneLine {
		p.resultsOnOneLine(s)
		return
	}
	if len(s.Results) > 0 {
		lines := make([]string, len(s.Results))
		for i, r := range s.Results {
			lines[i] = resultLine(r)
		}
		fmt.Fprintln(p.w, "  Results:")
		p.block(lines, false)
	}
	if s.Stderr != "" {
		fmt.Fprintln(p.w, "  Stderr:")
		p.block(strings.Split(s.Stderr, "\n"), true)
	}
}

// resultsOnOneLine prints a function's results and its stderr as kpt
// v1.0.0-beta.67 does: "[Results]: " and each result, ", " between them;
// then " Stderr: " and its lines, ", " between them, with no line end
// (kpt's own layout: the next line follows on it).
func (p *progress) resultsOnOneLine(s render.Step) {
	if len(s.Results) > 0 {
		lines := make([]string, 0, len(s.Results))
		for _, r := range s.Results {
			lines = append(lines, oneLine(resultLine(r)))
		}
		fmt.Fprintf(p.w, "[Results]: %s\n", strings.Join(lines, ", "))
	}
	if s.Stderr != "" {
		lines := strings.Split(s.Stderr, "\n")
		for i, l := range lines {
			lines[i] = oneLine(l)
		}
		fmt.Fprintf(p.w, " Stderr: %s", strings.Join(lines, ", "))
	}
}

// oneLine is s with its line ends as spaces, trimmed.
func oneLine(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\n", " ")) }

// block prints lines indented under a heading, the first four only unless
// truncation is off.
func (p *progress) block(lines []string, quote bool) {
	shown := lines
	if p.truncate && len(lines) > truncateLines {
		shown = lines[:truncateLines]
	}
	for _, l := range shown {
		if quote {
			l = fmt.Sprintf("%q", l)
		}
		fmt.Fprintf(p.w, "    %s\n", l)
	}
	if n := len(lines) - len(shown); n > 0 {
		fmt.Fprintf(p.w, "    ...(%d line(s) truncated, use '--truncate-output=false' to disable)\n", n)
	}
}

// resultLine is a result as kpt shows it: "[severity] apiVersion/kind/
// namespace/name field.path: message", the parts it has.
func resultLine(r *framework.Result) string {
	sev := string(r.Severity)
	if sev == "" {
		sev = string(framework.Info)
	}
	var where []string
	if ref := r.ResourceRef; ref != nil {
		var parts []string
		for _, v := range []string{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name} {
			if v != "" {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			where = append(where, strings.Join(parts, "/"))
		}
	}
	if r.Field != nil && r.Field.Path != "" {
		where = append(where, r.Field.Path)
	}
	if len(where) == 0 {
		return fmt.Sprintf("[%s]: %s", sev, r.Message)
	}
	return fmt.Sprintf("[%s] %s: %s", sev, strings.Join(where, " "), r.Message)
}

// exitCodeOf is a failed step's exit code: the function's own when it ran
// as a program, else 1.
func exitCodeOf(s render.Step) int {
	if s.ExitCode != 0 {
		return s.ExitCode
	}
	return 1
}

// printRenderError prints a failed render's error as kpt does, calling note
// where kpt says where the results are, and returns it. A failed function's
// [FAIL] line is out already; the rest of its block is printed here.
func (p *progress) printRenderError(err error, note func()) error {
	w := p.w
	var fe *render.FunctionError
	var ee *render.ExecError
	if fs := p.failedStep; fs != nil {
		if fs.Exec != "" && errors.As(err, &fe) && errors.As(fe.Err, &ee) &&
			(errors.As(ee.Err, new(*iofs.PathError)) || errors.As(ee.Err, new(*exec.Error))) {
			// the program could not be started
			note()
			fmt.Fprintf(w, "Error: unexpected function error: %v \n", ee.Err)
			return err
		}
		p.failure(*fs)
		note()
		if strings.HasSuffix(err.Error(), fs.Message) {
			return err // the failed function's block said it
		}
	} else {
		note()
	}
	if errors.Is(err, render.ErrIncomplete) {
		fmt.Fprintln(w, "Error: must run with `--allow-exec` option to allow running function binaries ")
		return err
	}
	if errors.As(err, &fe) {
		if fe.ExitCode != 0 {
			return err // its block said it
		}
		if fe.Err != nil {
			fmt.Fprintf(w, "Error: %v \n", fe.Err)
			return err
		}
	}
	var ke *render.KptfileError
	if errors.As(err, &ke) {
		dir := filepath.Dir(ke.File)
		if ke.Missing {
			fmt.Fprintf(w, "Error: No Kptfile found at %q. \n", dir)
			return err
		}
		if v, ok := kptOldVersion(ke); ok {
			fmt.Fprintf(w, "Error: Kptfile at %q has an old version (%q) of the Kptfile schema.\n"+
				"Please run \"%s\" to upgrade the package and retry. \n", dir, v, kptfile.UpgradeCommand)
			return err
		}
		details, unknown := kptfileDetails(ke)
		if !unknown {
			if ve, ok := kptValidation(ke); ok {
				printValidation(w, ve)
				return err
			}
		}
		fmt.Fprintf(w, "Error: Kptfile at %q can't be read.\n\nDetails:\n%s \n", dir, details)
		return err
	}
	var ve *render.ValidateError
	if errors.As(err, &ve) {
		if p.oneLine {
			ve = beta67Validation(ve)
		}
		printValidation(w, ve)
		return err
	}
	fmt.Fprintf(w, "Error: %v \n", err)
	return err
}

// beta67Validation is a validation error in kpt v1.0.0-beta.67's words
// where they changed: a configPath naming no file says which file it
// failed to open.
func beta67Validation(ve *render.ValidateError) *render.ValidateError {
	if ve.Reason != "functionConfig must exist in the current package" || ve.File == "" {
		return ve
	}
	out := *ve
	path := filepath.Join(filepath.Dir(ve.File), ve.Value)
	out.Reason = fmt.Sprintf("failed to open functionConfig from path %q: open %s: no such file or directory", ve.Value, path)
	return &out
}

// printValidation prints a Kptfile validation error as kpt does (without
// "Error:").
func printValidation(w io.Writer, ve *render.ValidateError) {
	fmt.Fprintf(w, "Kptfile is invalid:\nField: `%s`\n", ve.Field)
	if ve.Value != "" {
		fmt.Fprintf(w, "Value: %q\n", ve.Value)
	}
	fmt.Fprintf(w, "Reason: %s\n \n", ve.Reason)
}

// kptValidation is the first pipeline problem the Kptfile reader found that
// kpt reports as a validation error (decoding succeeds in kpt), in kpt's
// words, typo included.
func kptValidation(ke *render.KptfileError) (*render.ValidateError, bool) {
	var ve *strictyaml.ValidationError
	if !errors.As(ke.Err, &ve) {
		return nil, false
	}
	for _, pr := range ve.Problems {
		switch msg := pr.Message; {
		case strings.HasSuffix(msg, `a function needs "image" or "exec"`), strings.HasSuffix(msg, `"image" or "exec" must not be empty`):
			return &render.ValidateError{Field: pr.Field, Reason: "must specify a functon (`image` or `exec`) to execute"}, true
		case strings.HasSuffix(msg, `a function has "image" or "exec", not both`):
			return &render.ValidateError{Field: pr.Field, Reason: "must not specify both `image` and `exec` at the same time"}, true
		case strings.HasSuffix(msg, `a function has "configPath" or "configMap", not both`):
			return &render.ValidateError{Field: pr.Field, Reason: "functionConfig must not specify both `configMap` and `configPath` at the same time"}, true
		case strings.HasSuffix(pr.Field, ".configPath") && configPathRE.MatchString(msg):
			if v, err := strconv.Unquote(configPathRE.FindStringSubmatch(msg)[1]); err == nil {
				return &render.ValidateError{Field: pr.Field, Value: v, Reason: kptConfigPathReason(v)}, true
			}
		case strings.HasSuffix(pr.Field, ".image") && imageSpaceRE.MatchString(msg):
			if v, err := strconv.Unquote(imageSpaceRE.FindStringSubmatch(msg)[1]); err == nil {
				return &render.ValidateError{Field: pr.Field, Value: v, Reason: fmt.Sprintf("function name %q is invalid", v)}, true
			}
		}
	}
	return nil, false
}

// kptfileDetails words a Kptfile problem as kpt's YAML decoder does: a YAML
// syntax error, or the unknown fields with their lines and the kpt type that
// lacks them (kpt reports those before any other problem).
func kptfileDetails(ke *render.KptfileError) (details string, unknownFields bool) {
	var ve *strictyaml.ValidationError
	if !errors.As(ke.Err, &ve) || len(ve.Problems) == 0 {
		return fmt.Sprint(ke.Err), false
	}
	var unknown []string
	for _, pr := range ve.Problems {
		if msg, ok := strings.CutPrefix(pr.Message, "invalid YAML: "); ok {
			if pr.Cause != "" {
				return pr.Cause, true // the parser's words, its line included, as kpt prints them
			}
			return "yaml: " + msg, true
		}
		if m := configMapValueRE.FindStringSubmatch(pr.Message); m != nil && configMapFieldRE.MatchString(pr.Field) {
			unknown = append(unknown, fmt.Sprintf("  line %d: cannot unmarshal %s into string", pr.Line, yamlTags[m[1]]))
			continue
		}
		if !strings.HasPrefix(pr.Message, "unknown field ") {
			continue
		}
		parent, key := splitField(pr.Field)
		typ, ok := kptfileTypes[indexRE.ReplaceAllString(parent, "[]")]
		if !ok {
			return ve.Error(), false
		}
		unknown = append(unknown, fmt.Sprintf("  line %d: field %s not found in type %s", pr.Line, key, typ))
	}
	if len(unknown) == 0 {
		return ve.Error(), false
	}
	return "yaml: unmarshal errors:\n" + strings.Join(unknown, "\n"), true
}

// oldVersionRE is the Kptfile reader's problem with an old apiVersion.
var oldVersionRE = regexp.MustCompile(`^apiVersion: "kpt\.dev/(v1alpha[12])" is an old version of the Kptfile schema`)

// kptOldVersion is the old schema version ("v1alpha2") of a Kptfile the
// reader refused for it, which kpt reports in its own words.
func kptOldVersion(ke *render.KptfileError) (string, bool) {
	var ve *strictyaml.ValidationError
	if !errors.As(ke.Err, &ve) {
		return "", false
	}
	for _, pr := range ve.Problems {
		if m := oldVersionRE.FindStringSubmatch(pr.Message); pr.Field == "apiVersion" && m != nil {
			return m[1], true
		}
	}
	return "", false
}

var imageSpaceRE = regexp.MustCompile(`image (".*") contains whitespace$`)

// configPathRE is the Kptfile reader's problem with a configPath.
var configPathRE = regexp.MustCompile(`(".*") must be a slash-separated path inside the package$`)

// kptConfigPathReason is why kpt refuses configPath p (its
// validateFnConfigPathSyntax).
func kptConfigPathReason(p string) string {
	switch c := filepath.Clean(p); {
	case strings.TrimSpace(p) == "":
		return "path must not be empty"
	case filepath.IsAbs(c):
		return "path must be relative"
	case strings.Contains(c, ".."):
		return "path must not be outside the package"
	}
	return "path must be relative"
}

// configMapValueRE and configMapFieldRE are the Kptfile reader's problem
// with a configMap value that is no string, which kpt's decoder reports as
// "cannot unmarshal !!seq into string".
var (
	configMapValueRE = regexp.MustCompile(`must be a string, got (a list|a mapping)$`)
	configMapFieldRE = regexp.MustCompile(`^pipeline\.(mutators|validators)\[[0-9]+\]\.configMap\.`)
	yamlTags         = map[string]string{"a list": "!!seq", "a mapping": "!!map"}
)

var indexRE = regexp.MustCompile(`\[[0-9]+\]`)

// splitField splits "a.b[0].c" into "a.b[0]" and "c".
func splitField(f string) (parent, key string) {
	if i := strings.LastIndex(f, "."); i >= 0 {
		return f[:i], f[i+1:]
	}
	return "", f
}

// kptfileTypes names kpt's Go type for each struct of the Kptfile, as its
// decoder's messages do.
var kptfileTypes = map[string]string{
	"":                                  "v1.KptFile",
	"metadata":                          "yaml.ObjectMeta",
	"upstream":                          "v1.Upstream",
	"upstream.git":                      "v1.Git",
	"upstreamLock":                      "v1.UpstreamLock",
	"upstreamLock.git":                  "v1.GitLock",
	"info":                              "v1.PackageInfo",
	"info.readinessGates[]":             "v1.ReadinessGate",
	"pipeline":                          "v1.Pipeline",
	"pipeline.mutators[]":               "v1.Function",
	"pipeline.validators[]":             "v1.Function",
	"pipeline.mutators[].selectors[]":   "v1.Selector",
	"pipeline.mutators[].exclude[]":     "v1.Selector",
	"pipeline.validators[].selectors[]": "v1.Selector",
	"pipeline.validators[].exclude[]":   "v1.Selector",
	"inventory":                         "v1.Inventory",
	"status":                            "v1.Status",
	"status.conditions[]":               "v1.Condition",
}
