package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/render/builtins"
	"github.com/porchbot/porchbot/internal/render/yamlsize"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/runtime/runtimeutil"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FunctionError is a function that failed while rendering.
type FunctionError struct {
	Package  string // relative to the root
	Function string // image or exec line
	ExitCode int
	Stderr   string
	Err      error
}

func (e *FunctionError) Error() string {
	msg := fmt.Sprintf("function %q failed in package %s", e.Function, e.Package)
	if e.ExitCode != 0 {
		msg += fmt.Sprintf(" (exit code %d)", e.ExitCode)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		return msg + ": " + s
	}
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

func (e *FunctionError) Unwrap() error { return e.Err }

// fnRun is one function of one package's pipeline, ready to run. As a
// kio.Filter it behaves like kpt's function runner around an exec'd
// function: the input goes through a serialized ResourceList and comes back,
// comments and field order are restored from the input, resources the
// function created get a path, and results are collected.
type fnRun struct {
	r      *renderer
	pkg    *pkgNode
	fn     Function
	kind   StepKind
	guard  bool
	image  string
	config *yaml.RNode
	proc   framework.ResourceListProcessor
	bare   builtins.Bare // proc's body alone, for the in-memory path
	// unreconciled: a release on kyaml v0.10–v0.11's framework (builtins.Unreconciled)
	unreconciled bool
	stream       streamRunner
	skip         string
	// unrunnable: an image porchbot cannot run, which fails when its turn
	// comes (kpt would pull it then), the functions before it having run
	unrunnable error
	// announced is set once Progress.Start heard of the function
	announced bool
	// selected is how many resources a function with selectors or
	// exclusions was given (nil: it has none, or has not run)
	selected *int
	// what the function wrote to stderr (print output of a starlark
	// program run in process, or a child's stderr)
	printed *capWriter
	stderr  string
	// release is the catalog release a built-in runs as, note how it was
	// resolved (builtins.Resolved)
	release, note string
	// written is the image as kpt's render status records it
	written string
}

func (r *renderer) prepare(pkg *pkgNode, fn Function, kind StepKind, guard bool) (*fnRun, error) {
	run := &fnRun{r: r, pkg: pkg, fn: fn, kind: kind, guard: guard}
	var resolveErr error // why the image is no built-in release, if it is not
	if fn.Image != "" {
		run.image = fn.Image
		if !strings.Contains(fn.Image, "/") {
			run.image = r.opts.Kpt.orDefault().imagePrefix() + fn.Image
		}
		run.written = run.image
		b, err := builtins.Resolve(fn.Image, fn.Tag)
		if resolveErr = err; err == nil {
			run.release, run.note = b.Version, b.Note
			if fn.Tag != "" { // kpt runs, and records, the image at the tag it resolved
				run.written = withTag(run.image, b.Version)
			}
		}
	}
	pulled := r.pulledImage(fn, run.image, resolveErr)
	if pulled && !r.opts.AllowExec && !r.opts.ImagesWithoutExec {
		run.skip = "skipped: function images porchbot pulls run their own code, and do not run here (pull requests " +
			"from forks are rendered with built-in functions only), so this render is incomplete"
		return run, nil
	}
	if fn.Exec != "" {
		if !r.opts.AllowExec {
			run.skip = "skipped: exec functions do not run here (pull requests from forks are rendered " +
				"with built-in functions only), so this render is incomplete"
			return run, nil
		}
		if !r.opts.ExecAllowed(fn.Exec) {
			err := &UnsupportedFunctionError{Function: fn,
				Reason: "not allowed: the server's exec allowlist does not name it"}
			return nil, run.fail(time.Now(), err)
		}
	}
	cfg, err := newFnConfig(r.fsys, fn, pkg.abs)
	if err != nil {
		return nil, run.fail(time.Now(), err)
	}
	run.config = cfg
	resolve := r.opts.Resolve
	if resolve == nil {
		resolve = DefaultResolver
	}
	var proc framework.ResourceListProcessor
	if pulled {
		if ef, perr := r.pull(fn, run.image); perr != nil {
			err = perr
		} else {
			proc = ef
		}
	} else {
		proc, err = resolve(fn)
	}
	if err == nil && proc == nil {
		err = &UnsupportedFunctionError{Function: fn, Reason: "not supported", Supported: SupportedFunctions()}
	}
	if err != nil {
		if fn.Image != "" && fn.Tag == "" {
			// kpt makes an image's runner without pulling it (a tag:
			// constraint is resolved then, against the registry's tags)
			// and fails where the pull or the run fails: so does porchbot
			run.unrunnable = err
			return run, nil
		}
		return nil, run.fail(time.Now(), err)
	}
	if r.opts.Sandbox != nil {
		if p, ok := r.opts.Sandbox.wrap(fn, proc).(framework.ResourceListProcessor); ok {
			proc = p
		}
	} else if r, err := builtins.Resolve(fn.Image, fn.Tag); err == nil && fn.Exec == "" && sandboxedBuiltins[r.Spec.Name] {
		run.printed = &capWriter{max: 64 << 10}
		if p, ok := builtins.NewStarlark(run.release, run.printed); ok {
			proc = p
		}
	}
	if u, ok := proc.(builtins.StderrUser); ok {
		// what the release says on stderr, which kpt records
		run.printed = &capWriter{max: 64 << 10}
		u.UseStderr(run.printed)
	}
	if u, ok := proc.(builtins.SchemaUser); ok {
		u.UseSchemas(r.schemaSources(pkg))
	}
	if u, ok := proc.(builtins.ChartUser); ok {
		u.UseCharts(builtins.ChartSources{Package: r.packageFiles(pkg), Repos: r.opts.ChartRepos, Template: r.helmTemplater()})
	}
	run.proc = proc
	if s, ok := proc.(streamRunner); ok {
		run.stream = s
	}
	if b, ok := proc.(builtins.Bare); ok {
		run.bare = b
	}
	if u, ok := proc.(builtins.Unreconciled); ok {
		run.unreconciled = u.Unreconciled()
	}
	return run, nil
}

// schemaSources are where a schema validator of pkg's pipeline reads
// schemas: the server's directory, and the package's own files (a
// functionConfig's schema locations are relative paths inside it).
func (r *renderer) schemaSources(pkg *pkgNode) builtins.SchemaSources {
	return builtins.SchemaSources{Dir: r.opts.SchemaDir, Package: r.packageFiles(pkg).Read}
}

// packageFiles reads pkg's files for a function that reads them besides
// its resources (render-helm-chart's charts): paths inside the package only.
func (r *renderer) packageFiles(pkg *pkgNode) *builtins.PackageFiles {
	abs := func(rel string) (string, bool) {
		return filepath.Join(pkg.abs, filepath.FromSlash(rel)), filepath.IsLocal(filepath.FromSlash(rel))
	}
	return &builtins.PackageFiles{
		Read: func(rel string) ([]byte, error) {
			p, ok := abs(rel)
			if !ok || !r.fsys.Exists(p) || r.fsys.IsDir(p) {
				return nil, fs.ErrNotExist
			}
			b, err := r.fsys.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", rel, err)
			}
			return b, nil
		},
		List: func(rel string) ([]string, error) {
			dir, ok := abs(rel)
			if !ok || !r.fsys.IsDir(dir) {
				return nil, fs.ErrNotExist
			}
			var out []string
			err := r.fsys.Walk(dir, func(p string, info fs.FileInfo, err error) error {
				if err != nil {
					return err
				}
				if !info.IsDir() {
					sub, err := filepath.Rel(pkg.abs, p)
					if err != nil {
						return err
					}
					out = append(out, filepath.ToSlash(sub))
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("listing %s: %w", rel, err)
			}
			sort.Strings(out)
			return out, nil
		},
	}
}

// newFnConfig builds the functionConfig as kpt does: the configPath file
// parsed as is, or a ConfigMap named function-input holding configMap.
func newFnConfig(fsys interface{ ReadFile(string) ([]byte, error) }, fn Function, pkgAbs string) (*yaml.RNode, error) {
	switch {
	case fn.ConfigPath != "":
		b, err := fsys.ReadFile(filepath.Join(pkgAbs, fn.ConfigPath))
		if err != nil {
			return nil, fmt.Errorf("missing function config %q", fn.ConfigPath)
		}
		n, err := yaml.Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("invalid function config %q %w", fn.ConfigPath, err)
		}
		return n, nil
	case len(fn.ConfigMap) != 0:
		return newConfigMap(fn.ConfigMap)
	}
	return nil, nil
}

func newConfigMap(data map[string]string) (*yaml.RNode, error) {
	d := make(map[string]string, len(data))
	for k, v := range data {
		d[k] = v
	}
	node := yaml.NewMapRNode(&d)
	if node == nil {
		return nil, nil
	}
	cm := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}\n")
	if err := node.VisitFields(func(f *yaml.MapNode) error {
		f.Value.YNode().Tag = yaml.NodeTagString
		return nil
	}); err != nil {
		return nil, err
	}
	if err := cm.PipeE(yaml.SetField("data", node)); err != nil {
		return nil, err
	}
	return cm, nil
}

func (f *fnRun) step(status StepStatus, start time.Time) Step {
	return Step{Package: f.pkg.rel, Name: f.fn.Name, Image: f.image, Exec: f.fn.Exec, Guardrail: f.guard,
		Kind: f.kind, Status: status, Duration: time.Since(start), Selected: f.selected,
		Release: f.release, ReleaseNote: f.note, written: f.written}
}

// starts announces the function as it starts to run (Progress.Start), once.
func (f *fnRun) starts() {
	if f.announced {
		return
	}
	f.announced = true
	if start := f.r.opts.Progress.Start; start != nil {
		s := f.step("", time.Now())
		s.Duration = 0
		start(s)
	}
}

// report records the function's step; one that never started (it failed
// before it could) is announced first, one skipped never is.
func (f *fnRun) report(s Step) {
	if s.Status != StepSkipped {
		f.starts()
	}
	f.r.addStep(s)
}

// fail records a function that could not be prepared or run and returns the
// error kpt would stop with.
func (f *fnRun) fail(start time.Time, err error) error {
	s := f.step(StepFailed, start)
	s.Message = err.Error()
	s.Results = []*framework.Result{{Message: err.Error(), Severity: framework.Error}}
	f.report(s)
	f.r.res.Results.Items = append(f.r.res.Results.Items, FunctionResult{
		Image: f.image, ExecPath: f.fn.Exec, ExitCode: 1, Stderr: err.Error(), Results: s.Results})
	f.r.res.Results.ExitCode = 1
	return fmt.Errorf("%s: %w", f.r.kptfilePath(f.pkg.abs), err)
}

func (f *fnRun) recordSkip() {
	s := f.step(StepSkipped, time.Now())
	s.Duration = 0
	s.Message = f.skip
	s.Results = []*framework.Result{{Message: f.skip, Severity: framework.Warning}}
	f.report(s)
	f.r.res.Results.Items = append(f.r.res.Results.Items, FunctionResult{
		Image: f.image, ExecPath: f.fn.Exec, Results: s.Results})
}

// Filter implements kio.Filter.
func (f *fnRun) Filter(input []*yaml.RNode) ([]*yaml.RNode, error) {
	if len(f.fn.Selectors) > 0 || len(f.fn.Exclude) > 0 {
		n := len(input)
		f.selected = &n
	}
	f.starts()
	if f.bare == nil || f.stream != nil || f.printed != nil {
		f.r.foreign = true // see inPlace
	}
	start := time.Now()
	if err := areKRM(input); err != nil {
		return nil, f.failNoItem(start, fmt.Errorf("input resource list must contain only KRM resources: %s", err))
	}
	var (
		output  []*yaml.RNode
		results fnResults
		err     error
		done    bool
	)
	if f.stream == nil && !f.r.opts.serialized {
		var ferr error
		output, results, err, ferr = f.runInMemory(input)
		switch {
		case ferr == nil:
			done = true
			f.r.res.stats.inMemory++
		case errors.Is(ferr, errReplay):
			return nil, ferr
		case errors.As(ferr, new(errNeedsExact)):
			// the serialized run below runs the function again: what the
			// discarded in-memory run printed is not said twice
			if f.printed != nil {
				f.printed.buf.Reset()
			}
		default:
			return nil, f.failNoItem(start, ferr)
		}
	}
	if !done {
		f.r.res.stats.serialized++
		ff := &runtimeutil.FunctionFilter{FunctionConfig: f.config, GlobalScope: true, Run: f.run}
		output, err = ff.Filter(input)
		results = fnResults{node: ff.Results}
	}
	for _, n := range output {
		if v, _ := annotation(annotationsOf(n), pkgPathAnnotation); v == "" {
			if perr := setAnnotation(n, pkgPathAnnotation, f.pkg.abs); perr != nil {
				return output, f.failNoItem(start, perr)
			}
		}
	}
	if perr := enforcePathInvariants(output); perr != nil {
		return output, f.failNoItem(start, perr)
	}
	if kerr := areKRM(output); kerr != nil {
		return output, f.failNoItem(start, fmt.Errorf("output resource list must contain only KRM resources: %s", kerr))
	}
	item := FunctionResult{Image: f.image, ExecPath: f.fn.Exec}
	if results.parsed {
		item.Results = results.list
	} else if rerr := parseStructuredResult(results.node, &item); rerr != nil {
		return output, f.failNoItem(start, rerr)
	}
	s := f.step(StepOK, start)
	s.Results = item.Results
	printed := ""
	if f.printed != nil {
		printed = f.printed.String()
	}
	s.Stderr = f.stderr + printed
	item.Stderr = s.Stderr // kpt records a passing function's stderr too
	if err != nil {
		item.ExitCode = 1
		var ee *ExecError
		if errors.As(err, &ee) {
			item.ExitCode, item.Stderr = ee.ExitCode, printed+ee.Stderr
		}
		f.r.res.Results.ExitCode = 1
		f.r.res.Results.Items = append(f.r.res.Results.Items, item)
		s.Status, s.Stderr, s.ExitCode = StepFailed, item.Stderr, item.ExitCode
		s.Message = firstErrorMessage(item)
		f.report(s)
		return output, &FunctionError{Package: f.pkg.rel, Function: f.fn.DisplayName(),
			ExitCode: item.ExitCode, Stderr: item.Stderr, Err: err}
	}
	f.r.res.Results.Items = append(f.r.res.Results.Items, item)
	f.report(s)
	return output, nil
}

func firstErrorMessage(item FunctionResult) string {
	for _, r := range item.Results {
		if r.Severity == framework.Error {
			return r.Message
		}
	}
	if s := strings.TrimSpace(item.Stderr); s != "" {
		return s
	}
	return fmt.Sprintf("exit code %d", item.ExitCode)
}

func (f *fnRun) failNoItem(start time.Time, err error) error {
	s := f.step(StepFailed, start)
	s.Message = err.Error()
	f.report(s)
	return &FunctionError{Package: f.pkg.rel, Function: f.fn.DisplayName(), Err: err}
}

// run executes the function on a serialized ResourceList, as its own
// program would.
func (f *fnRun) run(in io.Reader, out io.Writer) (err error) {
	if s, ok := f.stream.(stderrRunner); ok {
		f.stderr, err = s.runStream(f.r.ctx, in, out)
		b, ok := out.(*bytes.Buffer)
		if !ok {
			return err
		}
		if err == nil && f.r.maxNodes >= 0 {
			// what the function wrote is parsed next: bounded as the package is
			if n := yamlsize.EstimateNodes(b.Bytes()); n > f.r.maxNodes {
				lim := &LimitExceededError{Limit: "output YAML nodes", Value: strconv.FormatInt(f.r.maxNodes, 10),
					Setting: "render-max-yaml-nodes"}
				err = &ExecError{ExitCode: 1, Stderr: lim.Error(), Err: lim}
			}
		}
		if errors.As(err, new(*LimitExceededError)) {
			b.Reset() // what a stopped function wrote is no ResourceList; its limit is the error
		}
		return err
	}
	if f.stream != nil {
		return f.stream.RunStream(f.r.ctx, in, out)
	}
	defer func() {
		if p := recover(); p != nil {
			err = &ExecError{ExitCode: 1, Stderr: fmt.Sprintf("function panicked: %v\n%s", p, debug.Stack())}
		}
	}()
	var proc framework.ResourceListProcessor = f.proc
	if f.bare != nil {
		// the runner's bookkeeping (ids, comments, order) is the
		// FunctionFilter's around this call: the built-in need not repeat it
		proc = framework.ResourceListProcessorFunc(f.bare.ProcessBare)
	}
	execute := framework.Execute
	if f.unreconciled {
		execute = builtins.ExecuteUnreconciled
	}
	if e := execute(proc, &kio.ByteReadWriter{Reader: in, Writer: out, KeepReaderAnnotations: true}); e != nil {
		return &ExecError{ExitCode: 1, Stderr: e.Error(), Err: e}
	}
	return nil
}

// enforcePathInvariants refuses outputs that point outside their package or
// put two resources at the same file and index.
func enforcePathInvariants(nodes []*yaml.RNode) error {
	seen := map[[3]string]bool{}
	for _, n := range nodes {
		pkgPath, _ := annotation(annotationsOf(n), pkgPathAnnotation)
		cur, index := fileAnnotations(n)
		fp := path.Clean(cur)
		if strings.HasPrefix(fp, "../") {
			return fmt.Errorf("function must not modify resources outside of package: resource has path %s", cur)
		}
		k := [3]string{pkgPath, fp, index}
		if seen[k] {
			return fmt.Errorf("resource at path %q and index %q already exists", fp, index)
		}
		seen[k] = true
	}
	return nil
}

// fnResults is what a function reported: its ResourceList's results, or,
// when parsed is set, the results as parseStructuredResult would read them.
type fnResults struct {
	node   *yaml.RNode
	list   []*framework.Result
	parsed bool
}

// parseStructuredResult reads a function's ResourceList.results into item,
// accepting both the wrapped (items:) and the bare list form, and the legacy
// resourceRef.metadata and field.suggestedValue shapes.
func parseStructuredResult(yml *yaml.RNode, item *FunctionResult) error {
	if yml.IsNilOrEmpty() {
		return nil
	}
	if yml.YNode().Kind == yaml.MappingNode {
		items, err := yml.Pipe(yaml.Lookup("items"))
		if err != nil {
			return err
		}
		if !items.IsNilOrEmpty() {
			yml = items
		}
	}
	if err := yaml.Unmarshal([]byte(yml.MustString()), &item.Results); err != nil {
		return err
	}
	elems, err := yml.Elements()
	if err != nil {
		return err
	}
	for i := range elems {
		if i >= len(item.Results) || item.Results[i] == nil {
			continue
		}
		res := item.Results[i]
		if md, _ := elems[i].Pipe(yaml.Lookup("resourceRef", "metadata")); md != nil && res.ResourceRef != nil {
			if name, _ := md.Pipe(yaml.Lookup("name")); name != nil {
				res.ResourceRef.Name = strings.TrimSpace(name.MustString())
			}
			if ns, _ := md.Pipe(yaml.Lookup("namespace")); ns != nil {
				if v := strings.TrimSpace(ns.MustString()); v != "" && v != "''" {
					res.ResourceRef.Namespace = v
				}
			}
		}
		if sv, _ := elems[i].Pipe(yaml.Lookup("field", "suggestedValue")); sv != nil {
			if res.Field == nil {
				res.Field = &framework.Field{}
			}
			res.Field.ProposedValue = sv
		}
	}
	return nil
}
