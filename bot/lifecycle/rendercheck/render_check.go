package rendercheck

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/render/builtins"
	"github.com/porchbot/porchbot/internal/treediff"
	"github.com/porchbot/porchbot/internal/words"
)

// RenderOptions are the server's settings of the render steps.
type RenderOptions struct {
	// Limits are the server's bounds on repository configs. Its
	// ExecAllowlist ("name" or "name=/path") is the server side of the exec
	// policy: an exec function runs only when the repository's
	// functions.exec declares it and this allowlist names it (with that
	// path, when the entry pins one), and never for forks.
	Limits config.ServerLimits
	// Identity signs the bot's Render commits (DefaultIdentity when empty).
	Identity core.Identity
	// MaxAttempts bounds the renders of one draft push when the branch
	// keeps moving under the bot's lease (default 3).
	MaxAttempts int
	// MaxFiles and MaxBytes bound the render's input (render's defaults
	// when zero); the git cache bounds what it reads first.
	MaxFiles int
	MaxBytes int64
	// StaleAfter is how long an unfinished render of a commit is taken to
	// be running elsewhere; older, it died (DefaultRenderStaleAfter when
	// zero). See MaxRenderAttempts.
	StaleAfter time.Duration
	// Bounds are the server's other limits on a render (docs/limits.md).
	Bounds render.Bounds
	// Images pulls the function images the server's allowlist names
	// (--function-images); nil: none run. Like exec functions, they never
	// run for forks.
	Images render.FunctionImages
	// SchemaDir is the server's directory of Kubernetes JSON schemas for
	// the schema validators (render.Options.SchemaDir).
	SchemaDir string
	// ChartRepos are the chart repositories render-helm-chart may fetch
	// from (--chart-repositories); nil: none.
	ChartRepos *builtins.ChartRepos
}

// RenderOutcome is what a render step did.
type RenderOutcome struct {
	Package   string
	Workspace string // for drafts
	Dir       string // the package directory in the repository
	// Head is the commit the check run was reported on: the draft's head
	// after the step (the bot's Render commit when Pushed).
	Head plumbing.Hash
	// Rendered is the commit whose content was rendered last.
	Rendered plumbing.Hash
	// Pushed reports that the bot pushed a "Render <package>" commit.
	Pushed     bool
	CheckRunID int64
	Conclusion string
	// Digest is the git tree id of the package directory at Head (zero
	// when the package is missing): equal contents, equal digests.
	Digest plumbing.Hash
	// Differs lists the files (relative to Dir) the rendered result
	// changes, adds or deletes with respect to Rendered.
	Differs []string
	// Attempts counts renders (more than one when the branch moved).
	Attempts int
	// Result is the last render's result (nil when the package is missing).
	Result *render.Result
	// Quarantined: earlier renders of the commit never finished (the
	// process died); the check was concluded as failed and nothing was
	// rendered (MaxRenderAttempts).
	Quarantined bool
	// Running: a render of the commit is under way elsewhere (another
	// replica); nothing was done.
	Running bool
}

// RenderCheck renders pkg at head without pushing anything (proposals,
// `/porch render` on a pull request) and reports porchbot/render on head:
// success iff the pipeline passes and the committed files equal the
// rendered result. fork renders with built-ins only (never exec). head must
// be in the session's git cache (a fork's head: fetch refs/pull/N/head
// first). The attempt is recorded as an in_progress check run before the
// render and completed with the report (two REST calls; see
// MaxRenderAttempts); any failure of the render, whatever its cause, is
// reported on it.
func RenderCheck(ctx context.Context, s *core.Session, api CheckRunAPI, head plumbing.Hash, pkg string, fork bool, opts RenderOptions) (_ *RenderOutcome, err error) {
	if err := packages.ValidateName(pkg); err != nil {
		return nil, fmt.Errorf("render check: %w", err)
	}
	dir := PackageDir(s.Config, pkg)
	log := s.Log.WithFields(map[string]any{"package": pkg, "ref": head.String()})
	out := &RenderOutcome{Package: pkg, Dir: dir, Head: head, Rendered: head}
	run, err := loadRun(ctx, s, head, dir)
	if err != nil {
		return nil, fmt.Errorf("render check %s at %s: %w", pkg, words.ShortSHA(head.String()), err)
	}
	attempt, verdict, err := beginRender(ctx, s, api, head, pkg, opts, false)
	if err != nil {
		return nil, fmt.Errorf("render check %s at %s: %w", pkg, words.ShortSHA(head.String()), err)
	}
	if attempt == nil {
		out.noRender(verdict)
		return out, nil
	}
	defer func() { attempt.abandon(ctx, pkg, err) }()
	if err := run.Render(ctx, s, dir, fork, opts); err != nil {
		return nil, fmt.Errorf("render check %s at %s: %w", pkg, words.ShortSHA(head.String()), err)
	}
	facts := run.facts(pkg, dir, head)
	out.Attempts, out.Result, out.Differs = 1, run.result, changedPaths(run.changes)
	if err := reportRender(ctx, s, api, attempt, facts, out); err != nil {
		return out, err
	}
	log.WithField("conclusion", out.Conclusion).Info("render checked")
	return out, nil
}

// noRender fills the outcome of a commit that was not rendered: quarantined
// (its check concluded) or being rendered elsewhere.
func (o *RenderOutcome) noRender(v attemptVerdict) {
	switch v {
	case attemptQuarantine:
		o.Quarantined, o.Conclusion = true, core.ConclusionFailure
	case attemptRunning:
		o.Running = true
	}
}

// RenderRun is one render of a package at a commit.
type RenderRun struct {
	missing  bool
	deletion bool // missing, yet on the deployment branch: the commit deletes it
	// deploymentBranch is the session's (for the deletion's report)
	deploymentBranch string
	Files            map[string][]byte // the package as committed
	result           *render.Result
	Err              error             // the pipeline failed or was incomplete, or the package could not be read
	Out              map[string][]byte // the rendered package (when err is nil)
	changes          []treediff.Change // out against files
	// saved is what a failed render wrote as the root Kptfile's
	// kpt.dev/save-on-render-failure asked (render.Result.SavedOnFailure)
	saved map[string][]byte
	hint  string // which exec functions may run
}

func (r *RenderRun) facts(pkg, dir string, head plumbing.Hash) renderFacts {
	return renderFacts{Package: pkg, Dir: dir, Head: head, Rendered: head, Missing: r.missing, Deletion: r.deletion,
		DeploymentBranch: r.deploymentBranch, Result: r.result,
		Err: r.Err, Changes: r.changes, Files: r.Files, ExecHint: r.hint}
}

// renderStarted, when set (by tests only), is called as each render
// starts: a test makes it hang to play a process that died mid-render.
var renderStarted func(ctx context.Context, dir string)

// loadRun reads the package at commit from the git cache. A missing or
// too large package is in the renderRun (to be reported); the error is for
// the machinery (git cache, context) and means nothing can be rendered.
func loadRun(ctx context.Context, s *core.Session, commit plumbing.Hash, dir string) (*RenderRun, error) {
	run := &RenderRun{}
	files, err := core.LoadPackage(ctx, s.Git, commit, dir)
	switch {
	case errors.Is(err, core.ErrPackageMissing):
		run.missing = true
		run.deletion, run.deploymentBranch = isDeletion(ctx, s, dir), s.DeploymentBranch
	case errors.Is(err, gitstore.ErrTreeTooLarge):
		run.Err = err
	case err != nil:
		return nil, err
	default:
		run.Files = files
	}
	return run, nil
}

// isDeletion reports whether the package directory dir, absent from the
// commit being rendered, is a package on the deployment branch (the commit
// deletes it, as a deletion proposal does).
func isDeletion(ctx context.Context, s *core.Session, dir string) bool {
	return !s.DeploymentHead.IsZero() && core.CheckPackageAt(ctx, s.Git, s.DeploymentHead, dir) == nil
}

// Render renders the loaded package in memory. Problems of the package (a
// failing pipeline, a name or file the render cannot take, a panic of the
// engine) are in the renderRun, to be reported on the check; the error is
// the context's.
func (run *RenderRun) Render(ctx context.Context, s *core.Session, dir string, fork bool, opts RenderOptions) error {
	if run.missing || run.Err != nil {
		return nil
	}
	ropts, hint := renderOptionsFor(s.Config, fork, opts)
	ropts.DisplayDir = dir
	run.hint = hint
	if renderStarted != nil {
		renderStarted(ctx, dir)
	}
	run.result, run.Out, run.Err = renderFiles(ctx, s.Log, dir, run.Files, ropts)
	if err := ctx.Err(); err != nil {
		return err
	}
	if run.Err == nil {
		run.changes = renderedChanges(run.Files, run.Out)
	} else if run.Out != nil {
		run.saved, run.Out = run.Out, nil
	}
	return nil
}

// renderedChanges are the files a render changed, none when it changed
// only the root Kptfile's record of a render (kptfile.RecordOnlyChange):
// re-rendering a rendered package records results that differ from those
// of the render that made it, and a package rendered before a kpt release
// that records renders has no record; either is rendered, and porchbot
// pushes no commit only to record a render.
func renderedChanges(files, out map[string][]byte) []treediff.Change {
	changes := treediff.Files(files, out).Changes()
	if len(changes) == 1 && changes[0].Path == kptfile.FileName && changes[0].Kind == "modified" &&
		kptfile.RecordOnlyChange(files[kptfile.FileName], out[kptfile.FileName]) {
		return nil
	}
	return changes
}

// renderFiles renders a package's files in memory and returns the rendered
// files. Every failure is returned as the render's error, a panic of the
// engine included, so that it reaches the check run; a failed render that
// saved what it had rendered (render.Result.SavedOnFailure) returns those
// files with its error.
func renderFiles(ctx context.Context, log logrus.FieldLogger, dir string, files map[string][]byte, ropts render.Options) (res *render.Result, out map[string][]byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			log.WithField("panic", fmt.Sprint(p)).WithField("stack", string(debug.Stack())).Error("render engine panicked")
			err = fmt.Errorf("internal error of the render engine (porchbot's fault, not the package's): %v", p)
		}
	}()
	fsys, err := core.NewPkgFS(dir, files)
	if err != nil {
		return nil, nil, err
	}
	res, err = render.Render(ctx, fsys.FS, fsys.Root, ropts)
	if err != nil {
		if res != nil && res.SavedOnFailure {
			if out, ferr := fsys.Files(); ferr == nil {
				return res, out, err
			}
		}
		return res, nil, err
	}
	out, err = fsys.Files()
	return res, out, err
}

// reportRender completes the render attempt's check run with facts (on
// the rendered commit) and, when the bot pushed a Render commit, publishes
// the same report on that new head; it fills the outcome's check fields
// and digest.
func reportRender(ctx context.Context, s *core.Session, api CheckRunAPI, attempt *renderAttempt, facts renderFacts, out *RenderOutcome) error {
	rep := renderReport(facts)
	out.Conclusion = rep.Conclusion
	if !facts.Missing {
		d, err := s.Git.TreeHash(ctx, facts.Head, facts.Dir)
		if err != nil {
			return fmt.Errorf("digest of %s at %s: %w", facts.Dir, words.ShortSHA(facts.Head.String()), err)
		}
		out.Digest = d
	}
	run, err := attempt.complete(ctx, rep)
	if err == nil && facts.Head != attempt.head {
		run, err = core.PublishCheck(ctx, api, s.Repo, facts.Head, rep)
	}
	out.CheckRunID = run.ID
	return err
}

// PackageDir is a package's directory: its name under packages.root.
func PackageDir(cfg *config.Config, pkg string) string {
	if cfg == nil {
		return pkg
	}
	return path.Join(packages.NormalizeRoot(cfg.Packages.Root), pkg)
}

// renderOptionsFor builds render.Options from the repository config and the
// server's settings, and says in one line which exec functions may run.
//
// Exec policy: a pipeline's `exec: NAME args…` runs the program declared as
// NAME in functions.exec, when the server allowlist names NAME ("NAME", or
// "NAME=PATH" with the declared path); `exec: PATH` runs when PATH is such
// a declared path. Nothing else runs, and for forks nothing at all.
func renderOptionsFor(cfg *config.Config, fork bool, o RenderOptions) (render.Options, string) {
	ropts := render.Options{AllowExec: !fork, MaxFiles: o.MaxFiles, MaxBytes: o.MaxBytes, Bounds: o.Bounds,
		Images: o.Images, SchemaDir: o.SchemaDir, ChartRepos: o.ChartRepos}
	programs := map[string]string{} // name or path in an exec line -> program to run
	var names []string
	if cfg != nil {
		for name, p := range cfg.Functions.Exec {
			if !serverAllowsExec(o.Limits.ExecAllowlist, name, p) {
				continue
			}
			programs[name], programs[p] = p, p
			names = append(names, name)
		}
		ropts.ExtraMutators = cfg.Render.Mutators
		ropts.ExtraValidators = cfg.Render.Validators
		ropts.Kpt = render.KptRelease(cfg.Render.Kpt)
	}
	sort.Strings(names)
	ropts.ExecAllowlist = core.SortedPaths(programs)
	ropts.Resolve = func(fn render.Function) (framework.ResourceListProcessor, error) {
		if fn.Exec == "" {
			return render.DefaultResolver(fn)
		}
		ef, err := render.NewExecFunction(fn.Exec)
		if err != nil {
			return nil, err
		}
		p, ok := programs[ef.Path]
		if !ok { // the engine checks the allowlist first; never run anything else
			return nil, &render.UnsupportedFunctionError{Function: fn, Reason: "not declared in functions.exec"}
		}
		ef.Path = p
		return ef, nil
	}
	var hint string
	switch {
	case fork:
		hint = "Pull requests from forks are rendered with built-in functions only; exec functions and function images never run for them."
	case len(names) == 0:
		hint = "No exec function may run in this repository: an exec function must be declared in `functions.exec` of " +
			mdquote.Code(config.Path) + " and named by the server's exec allowlist."
	default:
		hint = "Exec functions that may run here (declared in `functions.exec` and allowed by the server): " +
			strings.Join(names, ", ") + "."
	}
	return ropts, hint
}

// serverAllowsExec applies the server allowlist ("name" or "name=/path").
func serverAllowsExec(allowlist []string, name, p string) bool {
	for _, e := range allowlist {
		n, pinned, hasPath := strings.Cut(strings.TrimSpace(e), "=")
		if n == name && (!hasPath || pinned == p) {
			return true
		}
	}
	return false
}

func changedPaths(cs []treediff.Change) []string {
	if len(cs) == 0 {
		return nil
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

// renderErrorPosition is the file (relative to the package) and line a
// render error outside any function is about: the Kptfile and line it
// names (a subpackage's included), else the root Kptfile's first line.
func renderErrorPosition(f renderFacts) (file string, line int) {
	file, line = packages.KptfileName, 1
	var ve *render.ValidateError
	var pe *kptfile.ValidationError
	switch {
	case errors.As(f.Err, &ve):
		if rel, ok := packageRelative(f.Dir, ve.File); ok {
			file = rel
		}
		line, _, _ = core.FieldPosition(core.FindDoc(core.YAMLDocs(f.Files[file]), 0, nil), ve.Field)
	case errors.As(f.Err, &pe) && len(pe.Problems) > 0:
		if rel, ok := packageRelative(f.Dir, pe.Problems[0].File); ok {
			file = rel
		}
		line = max(pe.Problems[0].Line, 1)
	default:
		// A resource file that is not YAML, in kyaml's (and kpt's) words:
		// "<path>: MalformedYAMLError: yaml: line N: …", the path as the
		// render saw it (the package's directory under the in-memory root),
		// the line within the file's document.
		if m := malformedYAML.FindStringSubmatch(errText(f.Err)); m != nil {
			if rel, ok := packageRelative(f.Dir, strings.TrimPrefix(m[1], "/")); ok {
				file = rel
				line, _ = strconv.Atoi(m[2])
				line = max(line, 1)
			}
		}
	}
	return file, line
}

// malformedYAML is kyaml's message for a resource file that does not parse.
var malformedYAML = regexp.MustCompile(`(\S+): MalformedYAMLError: yaml: line (\d+):`)

// errText is err's message ("" for none).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// packageRelative is a repository path relative to the package directory.
func packageRelative(dir, p string) (string, bool) {
	rel, ok := strings.CutPrefix(p, strings.Trim(dir, "/")+"/")
	return rel, ok && rel != ""
}
