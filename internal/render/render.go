package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	goerrors "github.com/go-errors/errors"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kfile "github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/render/yamlsize"
)

// pkgPathAnnotation records which package a resource belongs to while the
// tree renders (kpt's name; functions see it).
const pkgPathAnnotation = "internal.config.kubernetes.io/package-path"

// matchAllKRM are the files kpt reads as resources.
var matchAllKRM = append([]string{kfile.FileName}, kio.MatchAll...)

// ErrIncomplete is returned (wrapped) when some functions were skipped: the
// render wrote nothing and must not be reported as a success.
var ErrIncomplete = errors.New("render incomplete")

// Render renders the kpt package at pkgPath in fsys in place, with the
// semantics of `kpt fn render`: subpackages depth-first (each sees only its
// own resources), then the package (which sees its own and all its
// subpackages' resources); in each, mutators then validators; selectors,
// exclusions, configPath and configMap as kpt applies them. If a function
// fails nothing is written. fsys may be an in-memory file system.
//
// It runs as a kyaml kio.Pipeline: a reader of the package tree (every
// package's own resources, Kptfiles and function configs included), one
// filter that renders the packages, and a writer that puts the result back
// (see run).
//
// The returned Result is never nil. The error is non-nil when kpt would exit
// non-zero (a function failed, a Kptfile is invalid, a limit was exceeded, a
// function is unsupported or not allowed), and wraps ErrIncomplete when exec
// functions were skipped (Options.AllowExec false).
func Render(ctx context.Context, fsys filesys.FileSystem, pkgPath string, opts Options) (*Result, error) {
	res := &Result{Results: newResultList(), Steps: []Step{}}
	if fsys == nil {
		fsys = filesys.MakeFsOnDisk()
	}
	dir, file, err := fsys.CleanedAbs(pkgPath)
	if err != nil {
		res.Results.ExitCode = 1
		return res, fmt.Errorf("package %q: %w", pkgPath, err)
	}
	root := filepath.Join(string(dir), file)
	if !fsys.IsDir(root) {
		res.Results.ExitCode = 1
		return res, fmt.Errorf("package %q is not a directory", pkgPath)
	}
	leave, err := opts.Gate.enter(ctx)
	if err != nil {
		return res, err
	}
	defer leave()
	tap := &progressTap{inner: opts.Progress}
	opts.Progress = tap.progress()
	r := newRenderer(ctx, fsys, opts, res, root)
	err = unwrapKyaml(r.run())
	if errors.Is(err, errReplay) {
		// A function run in place left what needs its input as it was. Every
		// function so far was a built-in that runs the same again: start
		// over with copies, the progress already told not told twice.
		*res = Result{Results: newResultList(), Steps: []Step{}}
		tap.skip, tap.seen = tap.seen, 0
		r = newRenderer(ctx, fsys, opts, res, root)
		r.copying = true
		res.stats.replays++
		err = unwrapKyaml(r.run())
	}
	res.Packages, res.Kpt, res.BreadthFirst = r.pkgCount, opts.Kpt.orDefault(), r.breadthFirst
	if opts.Kpt.orDefault().WritesRenderStatus() && opts.Output == nil {
		if serr := writeRenderStatus(fsys, root, res, err); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil && !errors.Is(err, ErrIncomplete) && res.Results.ExitCode == 0 {
		// kpt exits 1 whatever failed: a Kptfile, a limit, the writer,
		// between or before any function (skipped exec functions are no failure:
		// Result.Failed tells them apart)
		res.Results.ExitCode = 1
	}
	return res, err
}

func newRenderer(ctx context.Context, fsys filesys.FileSystem, opts Options, res *Result, root string) *renderer {
	r := &renderer{ctx: ctx, fsys: fsys, opts: opts, res: res, root: root, inputFiles: map[string]bool{}}
	r.maxFiles, r.maxBytes, r.maxDepth = opts.limits()
	r.maxNodes = orDefault(opts.MaxYAMLNodes, DefaultMaxYAMLNodes)
	r.aliasBounds = yamlsize.Bounds{Aliases: orDefault(opts.MaxAliases, DefaultMaxAliases),
		Bytes: orDefault(opts.MaxAliasBytes, DefaultMaxAliasBytes)}
	return r
}

// run is kio.Pipeline{Inputs: treeReader, Filters: hydrator, Outputs:
// treeWriter, ContinueOnEmptyResult: true}.Execute(), with the pipeline's
// annotation bookkeeping around the filter done by preprocess and reconcile
// (kyaml's own functions build every resource's metadata maps several
// times over).
func (r *renderer) run() error {
	nodes, err := treeReader{r}.Read()
	if err != nil {
		return err
	}
	if r.opts.OwnProcess && r.readBytes > 0 && r.readBytes <= smallPackageBytes {
		// From here on the heap holds the package; what the functions and
		// the writer allocate besides is garbage, which the collector lets
		// pile up to the size of the live heap before it runs. For a small
		// package the program's own code is a third of the peak memory
		// (the App's, 20 MiB resident), so the heap is held lower: the
		// collector runs a few more times over a small heap (1,000
		// resources: 1.3x the floor's peak memory instead of 1.45x, for
		// some 5% more CPU time).
		defer debug.SetGCPercent(debug.SetGCPercent(smallGCPercent))
	}
	snap, err := preprocess(nodes)
	if err != nil {
		return err
	}
	out, failed := hydrator{r}.Filter(nodes)
	if failed != nil && !r.res.SavedOnFailure {
		return failed
	}
	if err := reconcile(out, snap); err != nil {
		return errors.Join(failed, err)
	}
	r.shapeSlab, r.marks = nil, nil // no function runs any more: the writer need not keep them
	if r.largestCopy > bigCopy || (r.res.stats.inPlace > 0 && r.shapeHint <= bigCopy) {
		// The last function's input and its copy were live together, and
		// the collector's next goal is twice that; the writer would grow
		// the heap up to it. Collected now, the goal is twice what is left.
		// In place, a small package's heap is near the goal the collector
		// set at some peak of the functions' (1,000 resources: 1.26x the
		// floor's peak memory with this collection, 1.45x without); a
		// large one's is not, and would only pay for the collection.
		runtime.GC()
	}
	if r.opts.Output != nil {
		return r.opts.Output(out)
	}
	if failed != nil {
		if err := (treeWriter{r}).Write(out); err != nil {
			return fmt.Errorf("failed to save resources: %w (original render error: %w)", err, failed)
		}
		return failed
	}
	return treeWriter{r}.Write(out)
}

// bigCopy is the number of nodes (some 20 MiB of them) above which the
// in-memory path collects garbage before copying a function's input, and
// the render before writing: the collector's goal is twice the heap live at
// its last cycle, which a function's input and copy together make large,
// and a large package's peak memory is what counts (BenchmarkPeakMemory:
// 20,000 commented resources at 1.45x the floor's peak with these
// collections, 1.9x without; the package at the limits 1.3-1.4x, was
// 1.6-1.9x).
const bigCopy = 1 << 17

// smallPackageBytes is the size of KRM files up to which a render that is
// all its process does (Options.OwnProcess) paces the collector at
// smallGCPercent once the package is read.
const smallPackageBytes = 1 << 20

// smallGCPercent is the collector's pace (GOGC) for a small package.
const smallGCPercent = 60

// unwrapKyaml strips the stack-trace wrapper kio.Pipeline puts around
// errors. The prefixes kyaml gave it stay in the message (a file's path and
// "MalformedYAMLError", as kpt prints them), over the error it wraps.
func unwrapKyaml(err error) error {
	var ge *goerrors.Error
	if errors.As(err, &ge) && ge.Err != nil {
		if msg := ge.Error(); msg != ge.Err.Error() {
			return &prefixedError{msg: msg, err: ge.Err}
		}
		return ge.Err
	}
	return err
}

// prefixedError is a kyaml error with its prefixes: its message, and the
// error under them.
type prefixedError struct {
	msg string
	err error
}

func (e *prefixedError) Error() string { return e.msg }
func (e *prefixedError) Unwrap() error { return e.err }

type renderer struct {
	ctx  context.Context
	fsys filesys.FileSystem
	opts Options
	res  *Result
	root string

	maxFiles, maxDepth int
	maxBytes           int64
	maxNodes           int64
	aliasBounds        yamlsize.Bounds

	rootPkg    *pkgNode
	pkgCount   int
	inputFiles map[string]bool

	// the root Kptfile's render annotations (save_on_failure.go), and what
	// the root had gathered when a render saving on failure failed
	saveOnFailure, breadthFirst bool
	partial                     []*yaml.RNode

	marks       []*yaml.Node // stableUnshared's scratch space
	largestCopy int          // most nodes the in-memory path copied for one function
	readBytes   int64        // bytes of the files the direct reader read
	// copying: functions run on copies only (a render started again after
	// errReplay); foreign: a function other than an in-place built-in ran
	copying, foreign bool
	compacted        bool   // the first in-place run copied the resources into slabs (compact)
	shapeHint        int    // shapes the last in-place run took, and some
	shapeSlab        shapes // the largest slab of shapes so far, reused
	inputShapes      shapes // the copy path's shapes of one input (inputShape)
}

// hydrator renders the packages the reader found and returns the root
// package's resources, paths relative to the root.
type hydrator struct{ r *renderer }

func (h hydrator) Filter(nodes []*yaml.RNode) ([]*yaml.RNode, error) {
	r := h.r
	byPkg := map[string][]*yaml.RNode{}
	for _, n := range nodes {
		// kio.Pipeline's own bookkeeping; kpt's functions never see it
		clearAnnotation(n, migrationKey)
		p, _ := annotation(annotationsOf(n), pkgPathAnnotation)
		byPkg[p] = append(byPkg[p], n)
	}
	hydrate := func() ([]*yaml.RNode, error) { return r.hydrate(r.rootPkg, byPkg) }
	if r.breadthFirst {
		hydrate = func() ([]*yaml.RNode, error) { return r.hydrateBreadthFirst(byPkg) }
	}
	out, err := hydrate()
	if err != nil {
		if !r.saveOnFailure || r.opts.Output != nil {
			return nil, err // kpt saves a failed render only in place
		}
		// kpt writes what the root had gathered, and fails
		if aerr := r.adjustRelPaths(r.partial); aerr != nil {
			return nil, err
		}
		r.res.SavedOnFailure = true
		if !r.opts.NoAttribution && os.Getenv("KPT_DISABLE_ATTRIBUTION") == "" {
			attribute(r.partial)
		}
		return r.partial, err
	}
	if skipped := r.res.Skipped(); len(skipped) > 0 {
		names := make([]string, len(skipped))
		for i, s := range skipped {
			names[i] = s.Function()
		}
		return nil, fmt.Errorf("%w: %d exec function(s) skipped because exec is not allowed here (%s); nothing was written",
			ErrIncomplete, len(skipped), strings.Join(names, ", "))
	}
	if err := r.adjustRelPaths(out); err != nil {
		return nil, err
	}
	if !r.opts.NoAttribution && os.Getenv("KPT_DISABLE_ATTRIBUTION") == "" {
		attribute(out)
	}
	return out, nil
}

// treeWriter writes the rendered resources back (see write).
type treeWriter struct{ r *renderer }

func (t treeWriter) Write(nodes []*yaml.RNode) error {
	changed, deleted, err := t.r.write(nodes)
	t.r.res.Changed, t.r.res.Deleted = changed, deleted
	return err
}

// hydrate renders pkg and returns its resources and those of all its
// subpackages, rendered.
func (r *renderer) hydrate(pkg *pkgNode, byPkg map[string][]*yaml.RNode) ([]*yaml.RNode, error) {
	r.pkgCount++
	var input []*yaml.RNode
	for _, sub := range pkg.subs {
		out, err := r.hydrate(sub, byPkg)
		if err != nil {
			if r.saveOnFailure && out != nil {
				// kpt keeps what this package gathered and returns nothing up
				r.keepPartial(pkg, append(append(input, out...), byPkg[pkg.abs]...))
			}
			return nil, err
		}
		input = append(input, out...)
	}
	r.enterPackage(pkg)
	local := byPkg[pkg.abs]
	input = append(input, local...)
	out, err := r.runPipeline(pkg, input, local)
	if err != nil && r.saveOnFailure {
		if out == nil {
			out = input // failed before any function ran
		}
		r.keepPartial(pkg, out)
		return out, err
	}
	return out, err
}

// adjustRelPaths makes every resource's path relative to the root package.
func (r *renderer) adjustRelPaths(nodes []*yaml.RNode) error {
	for _, n := range nodes {
		pkgPath, _ := annotation(annotationsOf(n), pkgPathAnnotation)
		cur, _ := fileAnnotations(n)
		if !filepath.IsAbs(pkgPath) {
			return fmt.Errorf("subpackage path %q must be absolute", pkgPath)
		}
		sub, err := filepath.Rel(r.root, pkgPath)
		if err != nil {
			return fmt.Errorf("subpackage %q must be relative to %q: %w", r.root, pkgPath, err)
		}
		if sub == ".." || strings.HasPrefix(sub, ".."+string(filepath.Separator)) {
			return fmt.Errorf("subpackage %q is not a descendant of %q", pkgPath, r.root)
		}
		p := filepath.Join(sub, filepath.Clean(cur))
		if err := setAnnotation(n, kioutil.PathAnnotation, p); err != nil {
			return err
		}
		if err := setAnnotation(n, kioutil.LegacyPathAnnotation, p); err != nil { //nolint:staticcheck
			return err
		}
		clearAnnotation(n, pkgPathAnnotation)
	}
	return nil
}

// attribute adds kpt's usage annotation to Config Connector resources, as
// `kpt fn render` does.
func attribute(nodes []*yaml.RNode) {
	const key = "cnrm.cloud.google.com/blueprint"
	for _, n := range nodes {
		if !strings.Contains(n.GetApiVersion(), ".cnrm.") {
			continue
		}
		if n.Field(yaml.MetadataField).IsNilOrEmpty() {
			continue
		}
		_ = n.PipeE(yaml.SetAnnotation(key, recordAction(n.GetAnnotations()[key], "fn")))
	}
}

func recordAction(cur, group string) string {
	if cur == "" {
		return "kpt-" + group
	}
	if !strings.Contains(cur, "kpt-") {
		return cur + ",kpt-" + group
	}
	parts := strings.Split(cur, ",")
	for i, p := range parts {
		if !strings.Contains(p, "kpt") {
			continue
		}
		kpt := []string{"kpt"}
		for _, g := range []string{"pkg", "fn", "live"} {
			if strings.Contains(p, g) || group == g {
				kpt = append(kpt, g)
			}
		}
		parts[i] = strings.Join(kpt, "-")
	}
	return strings.Join(parts, ",")
}
