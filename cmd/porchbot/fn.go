package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/porchbot/porchbot/internal/render/builtins"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

// runFn implements `porchbot fn [<name>]`: with a name it runs that built-in
// as a KRM exec function (a ResourceList on stdin, the ResourceList with its
// results on stdout, a non-zero exit when the function fails), so that kpt can
// call porchbot's built-ins, e.g.
//
//	kpt fn eval --exec "porchbot fn set-namespace" -- namespace=prod
//
// or from a Kptfile pipeline with `exec: porchbot fn set-namespace`. A bare
// name runs the newest release porchbot reproduces; a catalog image or
// name:tag ("gcr.io/kpt-fn/set-namespace:v0.1.4", "set-labels:v0.1") runs the
// release it names, resolved as a render resolves it (and refused the same way
// when porchbot does not reproduce it). Without a name it lists the built-ins
// and the releases each runs.
func runFn(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" || args[0] == "list" {
		return listFns(stdout)
	}
	spec, newFn, err := fnByName(args[0])
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return fmt.Errorf("%s takes its configuration from the ResourceList functionConfig, not from arguments %q",
			spec.Name, args[1:])
	}
	rw := &kio.ByteReadWriter{Reader: stdin, Writer: stdout, KeepReaderAnnotations: true}
	f := newFn()
	if u, ok := f.(builtins.StderrUser); ok {
		u.UseStderr(stderr) // as the catalog function prints it
	}
	if u, ok := f.(builtins.SchemaUser); ok {
		// a schema validator reads the schema directory PORCHBOT_SCHEMA_DIR
		// names, and the resources' CRDs; it has no package to read
		u.UseSchemas(builtins.SchemaSources{Dir: os.Getenv("PORCHBOT_SCHEMA_DIR")})
	}
	if u, ok := f.(builtins.ChartUser); ok {
		// render-helm-chart reads charts relative to its working directory,
		// as the catalog's image does, and fetches from the repositories
		// PORCHBOT_CHART_REPOSITORIES lists
		repos, err := builtins.ParseChartRepos(strings.Split(os.Getenv("PORCHBOT_CHART_REPOSITORIES"), ","))
		if err != nil {
			return fmt.Errorf("PORCHBOT_CHART_REPOSITORIES: %w", err)
		}
		u.UseCharts(builtins.ChartSources{Package: builtins.DirFiles("."), Repos: repos})
	}
	if err := builtins.Execute(f, rw); err != nil {
		var f builtins.Failure
		if errors.As(err, &f) {
			fmt.Fprint(stderr, f.Stderr) // as the catalog function prints it
			return reportedError{err}
		}
		return fmt.Errorf("%s: %w", spec.Name, err)
	}
	return nil
}

// fnByName finds the built-in `porchbot fn` runs: a bare built-in name is its
// newest release, anything else an image resolved as a render resolves it.
func fnByName(arg string) (builtins.Spec, func() builtins.Function, error) {
	for _, s := range builtins.All() {
		if arg == s.Name {
			return s, s.New, nil
		}
	}
	r, err := builtins.Resolve(arg, "")
	var notBuiltin *builtins.ErrNotBuiltin
	if errors.As(err, &notBuiltin) {
		return builtins.Spec{}, nil, fmt.Errorf("unknown function %q; built-in functions: %s", arg, strings.Join(builtins.Names(), ", "))
	}
	if err != nil {
		return builtins.Spec{}, nil, fmt.Errorf("function %q: %w", arg, err)
	}
	return r.Spec, r.New, nil
}

func listFns(w io.Writer) error {
	fmt.Fprintln(w, "Usage: porchbot fn <name>[:<tag>] | <image>   (reads a KRM ResourceList on stdin, writes it to stdout)")
	fmt.Fprintln(w, "\nBuilt-in functions: the kpt catalog's images gcr.io/kpt-fn/<name>:<tag> and")
	fmt.Fprintln(w, "ghcr.io/kptdev/krm-functions-catalog/<name>:<tag> (<name>:<tag> alone is under gcr.io/kpt-fn/, as")
	fmt.Fprintln(w, "kpt expands it). Each runs as the catalog release its tag names; a floating tag (v0.4) is the")
	fmt.Fprintln(w, "newest patch of its line; latest, no tag, and a bare <name> here, the newest release listed (kpt")
	fmt.Fprintln(w, "pulls the catalog's newest: the render check says which release ran). Any other tag, or a digest,")
	fmt.Fprintln(w, "fails the render rather than run another release.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tKIND\tRELEASES\tWHAT IT DOES")
	for _, s := range builtins.All() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Name, s.Kind, s.VersionRanges(), s.Summary)
	}
	return tw.Flush()
}
