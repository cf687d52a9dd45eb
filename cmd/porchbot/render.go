package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/render/builtins"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// reportedError is a failure whose message the command has already printed
// (kpt's wording): main exits 1 without adding its own line.
type reportedError struct{ err error }

func (e reportedError) Error() string { return e.err.Error() }
func (e reportedError) Unwrap() error { return e.err }

// runRender implements `porchbot render [PKG_PATH] [flags]`, a drop-in for
// `kpt fn render`: the same flags (-o/--output stdout|unwrap|DIR,
// --results-dir, --allow-exec, --image-pull-policy, --truncate-output), the
// same progress on stderr, the same error messages and exit codes, with
// porchbot's built-ins standing in for the container images it implements.
func runRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// Nobody takes a heap profile of a command line render: the runtime
	// need not sample its allocations (1.4 MiB of sample buckets at 1,000
	// resources, and their time).
	runtime.MemProfileRate = 0
	err := renderCmd(ctx, args, stdout, stderr)
	if err != nil && !errors.As(err, new(reportedError)) {
		// kpt's command line words its own errors so
		fmt.Fprintf(stderr, "error: %v\n", err)
		return reportedError{err}
	}
	return err
}

func renderCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are worded as kpt's below
	var output string
	fs.StringVar(&output, "output", "", "write the rendered resources to stdout, unwrap (plain YAML on stdout) or `DIR` (must not exist) instead of in place")
	fs.StringVar(&output, "o", "", "shorthand for --output")
	resultsDir := fs.String("results-dir", "", "write the FunctionResultList to `DIR`/results.yaml")
	allowExec := fs.Bool("allow-exec", false, "run exec functions")
	allowlist := fs.String("exec-allowlist", "", "with --allow-exec, only these exec programs (comma-separated paths or names)")
	pullPolicy := fs.String("image-pull-policy", "", "accepted for kpt compatibility (Always, IfNotPresent, Never): built-ins need no image")
	truncate := fs.Bool("truncate-output", true, "truncate function results and stderr in the progress output")
	fs.Bool("allow-network", false, "accepted for kpt compatibility: built-ins use no network")
	fs.Bool("allow-alpha-wasm", false, "accepted for kpt compatibility: wasm functions are not supported")
	images := fs.String("function-images", "", "pull and run these function images, which porchbot does not build in, without a container runtime: comma-separated `REPOSITORY`, REPOSITORY:TAG-GLOB or REPOSITORY@sha256:DIGEST, registry host first (docs/functions.md, \"Function images\")")
	imageCache := fs.String("function-image-cache", "", "where the programs of pulled function images are kept, by digest (default: the user's cache directory, porchbot/function-images)")
	chartRepos := fs.String("chart-repositories", "", "the Helm chart repositories render-helm-chart may fetch the charts a package does not carry from: comma-separated http(s) `URL`s (none by default: charts come from the package)")
	schemaDir := fs.String("schema-dir", "", "the `DIR` of Kubernetes JSON schemas (kubeconform's layout) the kubeconform and kubeval built-ins read, in place of the schemas the catalog's images bundle")
	kpt := fs.String("kpt", "", "the kpt `RELEASE` whose render to reproduce: v1.0.0-beta.67 (the default: records the render in the root Kptfile's status) or v1.0.0-beta.56 (leaves the Kptfile as the functions leave it)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: porchbot render [PKG_PATH] [flags]   (as kpt fn render; PKG_PATH defaults to the current directory)")
			fs.SetOutput(stdout)
			printFlags(fs)
			return nil
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			return fmt.Errorf("unknown flag: --%s", strings.TrimPrefix(name, "-"))
		}
		return err
	}
	dir := "." // kpt renders its first argument and ignores the others
	if len(positional) > 0 {
		dir = positional[0]
	}
	if p := *pullPolicy; p != "" {
		switch strings.ToLower(p) {
		case "always", "ifnotpresent", "never":
			fmt.Fprintln(stderr, "porchbot: --image-pull-policy has no effect: built-in functions run in process, no image is pulled")
		default:
			return fmt.Errorf("invalid argument %q for \"--image-pull-policy\" flag: must be one of: Always, IfNotPresent, Never", p)
		}
	}
	dir, err = resolveSymlink(dir, stderr)
	if err != nil {
		return err
	}
	release, err := render.ParseKptRelease(*kpt)
	if err != nil {
		return err
	}
	// kpt has no package limits: those are the server's (docs/limits.md)
	opts := render.Options{AllowExec: *allowExec, MaxFiles: -1, MaxBytes: -1,
		Bounds: render.Bounds{MaxYAMLNodes: -1}, OwnProcess: true, Kpt: release, SchemaDir: *schemaDir}
	if *chartRepos != "" {
		if opts.ChartRepos, err = builtins.ParseChartRepos(strings.Split(*chartRepos, ",")); err != nil {
			return fmt.Errorf("--chart-repositories: %w", err)
		}
	}
	if *allowExec {
		opts.ExecAllowlist = []string{"*"}
		if strings.TrimSpace(*allowlist) != "" {
			opts.ExecAllowlist = strings.Split(*allowlist, ",")
		}
	}
	if strings.TrimSpace(*images) != "" {
		p, err := functionImagePuller(*images, *imageCache)
		if err != nil {
			return err
		}
		opts.Images, opts.ImagesWithoutExec = p, true
	}
	switch output {
	case "":
	case "stdout", "unwrap":
		wrap := output == "stdout"
		opts.Output = func(nodes []*yaml.RNode) error {
			w := kio.ByteWriter{Writer: stdout}
			if !wrap {
				w.ClearAnnotations = []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} //nolint:staticcheck // kpt clears both
			}
			if wrap {
				w.KeepReaderAnnotations = true
				w.WrappingKind = kio.ResourceListKind
				w.WrappingAPIVersion = kio.ResourceListAPIVersion
			}
			return w.Write(nodes)
		}
	default:
		if _, err := os.Stat(output); err == nil {
			return fmt.Errorf("directory %q already exists, please delete the directory and retry", output)
		}
		dest := output
		opts.Output = func(nodes []*yaml.RNode) error {
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return err
			}
			return kio.LocalPackageWriter{PackagePath: dest}.Write(nodes)
		}
	}
	if *resultsDir != "" { // kpt creates it first, whatever happens next
		if err := os.MkdirAll(*resultsDir, 0o755); err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	p := &progress{w: stderr, root: filepath.Base(abs), truncate: *truncate, oneLine: release == render.KptBeta67}
	opts.Progress = render.Progress{Package: p.pkg, Start: p.start, Step: p.step}

	res, err := render.Render(ctx, filesys.MakeFsOnDisk(), dir, opts)
	resultsNote := func() {}
	if *resultsDir != "" && res != nil && res.Packages > 0 { // kpt writes none when no package was read
		if werr := writeResults(*resultsDir, res.Results); werr != nil {
			return werr
		}
		resultsNote = func() {
			fmt.Fprintf(stderr, "For complete results, see %s\n", filepath.Join(*resultsDir, "results.yaml"))
		}
	}
	if err != nil {
		note := resultsNote
		if res != nil && res.SavedOnFailure {
			// kpt says how far the render it saved got, before the results
			note = func() { fmt.Fprintln(stderr, partialSummary(res)); resultsNote() }
		}
		return reportedError{p.printRenderError(err, note)}
	}
	p.endPackage()
	if output == "" {
		fmt.Fprintf(stderr, "Successfully executed %d function(s) in %d package(s).\n", len(res.Steps), res.Packages)
	}
	resultsNote()
	return nil
}

// parseInterspersed parses flags before and after positional arguments, as
// kpt's command line does.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func writeResults(dir string, l render.FunctionResultList) error {
	y, err := l.YAML()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.yaml"), y, 0o644)
}

// partialSummary is kpt's line on a failed render it saved
// (kpt.dev/save-on-render-failure): how many functions ran and passed.
func partialSummary(res *render.Result) string {
	ran := 0
	for _, s := range res.Steps {
		if s.Status == render.StepOK {
			ran++
		}
	}
	if ran == 0 {
		return fmt.Sprintf("Failed to execute any functions in %d package(s).", res.Packages)
	}
	return fmt.Sprintf("Partially executed %d function(s) in %d package(s).", ran, res.Packages)
}

// resolveSymlink is the package path kpt renders for dir: the directory a
// symlink names, with kpt's warning that symlinks inside the package are
// not followed (kpt's argutil.ResolveSymlink).
func resolveSymlink(dir string, stderr io.Writer) (string, error) {
	fi, lerr := os.Lstat(dir)
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if lerr == nil && fi.Mode().Type() == os.ModeSymlink {
		fmt.Fprintf(stderr, "[WARN] resolved symlink %q to %q, please note that the symlinks within the package are ignored\n", dir, resolved)
	}
	return resolved, nil
}
