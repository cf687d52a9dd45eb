package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render"
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
	Identity Identity
	// MaxAttempts bounds the renders of one draft push when the branch
	// keeps moving under the bot's lease (default 3).
	MaxAttempts int
	// MaxFiles and MaxBytes bound the render's input (render's defaults
	// when zero); the git cache bounds what it reads first.
	MaxFiles int
	MaxBytes int64
	// Bounds are the server's other limits on a render (docs/limits.md).
	Bounds render.Bounds
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
}

// RenderCheck renders pkg at head without pushing anything (proposals,
// `/porch render` on a pull request) and reports porchbot/render on head:
// success iff the pipeline passes and the committed files equal the
// rendered result. fork renders with built-ins only (never exec). head must
// be in the session's git cache (a fork's head: fetch refs/pull/N/head
// first).
func RenderCheck(ctx context.Context, s *Session, api CheckRunWriter, head plumbing.Hash, pkg string, fork bool, opts RenderOptions) (*RenderOutcome, error) {
	if err := packages.ValidateName(pkg); err != nil {
		return nil, fmt.Errorf("render check: %w", err)
	}
	dir := packageDir(s.Config, pkg)
	log := s.Log.WithFields(map[string]any{"package": pkg, "ref": head.String()})
	run, err := renderAt(ctx, s, head, dir, fork, opts)
	if err != nil {
		return nil, fmt.Errorf("render check %s at %s: %w", pkg, abbrevHash(head), err)
	}
	facts := run.facts(pkg, dir, head)
	out := &RenderOutcome{Package: pkg, Dir: dir, Head: head, Rendered: head, Attempts: 1, Result: run.result,
		Differs: changedPaths(run.changes)}
	if err := reportRender(ctx, s, api, facts, out); err != nil {
		return out, err
	}
	log.WithField("conclusion", out.Conclusion).Info("render checked")
	return out, nil
}

// renderRun is one render of a package at a commit.
type renderRun struct {
	missing bool
	files   map[string][]byte // the package as committed
	result  *render.Result
	err     error             // the pipeline failed or was incomplete, or the package could not be read
	out     map[string][]byte // the rendered package (when err is nil)
	changes []fileChange      // out against files
	hint    string            // which exec functions may run
}

func (r *renderRun) facts(pkg, dir string, head plumbing.Hash) renderFacts {
	return renderFacts{Package: pkg, Dir: dir, Head: head, Rendered: head, Missing: r.missing, Result: r.result,
		Err: r.err, Changes: r.changes, Files: r.files, ExecHint: r.hint}
}

// renderAt reads the package at commit and renders it in memory. Problems
// of the package (missing, too large, a failing pipeline) are in the
// renderRun; the error is for the machinery (git cache, context).
func renderAt(ctx context.Context, s *Session, commit plumbing.Hash, dir string, fork bool, opts RenderOptions) (*renderRun, error) {
	run := &renderRun{}
	files, err := loadPackage(ctx, s.Git, commit, dir)
	switch {
	case errors.Is(err, errPackageMissing):
		run.missing = true
		return run, nil
	case errors.Is(err, gitstore.ErrTreeTooLarge):
		run.err = err
		return run, nil
	case err != nil:
		return nil, err
	}
	run.files = files
	fsys, err := newPkgFS(dir, files)
	if err != nil {
		return nil, err
	}
	ropts, hint := renderOptionsFor(s.Config, fork, opts)
	run.hint = hint
	res, rerr := render.Render(ctx, fsys.fs, fsys.root, ropts)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	run.result = res
	if rerr != nil {
		run.err = rerr
		return run, nil
	}
	if run.out, err = fsys.files(); err != nil {
		return nil, err
	}
	run.changes = diffFiles(files, run.out)
	return run, nil
}

// reportRender publishes the porchbot/render check of facts and fills the
// outcome's check fields and digest.
func reportRender(ctx context.Context, s *Session, api CheckRunWriter, facts renderFacts, out *RenderOutcome) error {
	rep := renderReport(facts)
	out.Conclusion = rep.Conclusion
	if !facts.Missing {
		d, err := s.Git.TreeHash(ctx, facts.Head, facts.Dir)
		if err != nil {
			return fmt.Errorf("digest of %s at %s: %w", facts.Dir, abbrevHash(facts.Head), err)
		}
		out.Digest = d
	}
	run, err := publishCheck(ctx, api, s.Repo, facts.Head, rep)
	if run != nil {
		out.CheckRunID = run.GetID()
	}
	return err
}

// packageDir is a package's directory: its name under packages.root.
func packageDir(cfg *config.Config, pkg string) string {
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
	ropts := render.Options{AllowExec: !fork, MaxFiles: o.MaxFiles, MaxBytes: o.MaxBytes, Bounds: o.Bounds}
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
		ropts.ExtraMutators = renderFunctions(cfg.Render.Mutators)
		ropts.ExtraValidators = renderFunctions(cfg.Render.Validators)
	}
	sort.Strings(names)
	ropts.ExecAllowlist = sortedPaths(programs)
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
		hint = "Pull requests from forks are rendered with built-in functions only; exec functions never run for them."
	case len(names) == 0:
		hint = "No exec function may run in this repository: an exec function must be declared in `functions.exec` of " +
			"`" + config.Path + "` and named by the server's exec allowlist."
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

// renderFunctions converts config guardrail functions to the render engine's.
func renderFunctions(fns []kptfile.Function) []render.Function {
	if len(fns) == 0 {
		return nil
	}
	out := make([]render.Function, 0, len(fns))
	for _, f := range fns {
		// Tag (newer kpt's version constraint) is not needed: built-ins
		// are matched by image name whatever the tag.
		out = append(out, render.Function{Image: f.Image, Exec: f.Exec, ConfigPath: f.ConfigPath,
			ConfigMap: f.ConfigMap, Name: f.Name, Selectors: renderSelectors(f.Selectors),
			Exclusions: renderSelectors(f.Exclude)})
	}
	return out
}

func renderSelectors(in []kptfile.Selector) []render.Selector {
	if len(in) == 0 {
		return nil
	}
	out := make([]render.Selector, len(in))
	for i, s := range in {
		out[i] = render.Selector{APIVersion: s.APIVersion, Kind: s.Kind, Name: s.Name, Namespace: s.Namespace,
			Labels: s.Labels, Annotations: s.Annotations}
	}
	return out
}

func changedPaths(cs []fileChange) []string {
	if len(cs) == 0 {
		return nil
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}
