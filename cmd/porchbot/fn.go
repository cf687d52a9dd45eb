package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/porchbot/porchbot/internal/render/builtins"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

// runFn implements `porchbot fn [<name>]`: with a name it runs that built-in
// as a KRM exec function (a ResourceList on stdin, the ResourceList with its
// results on stdout, a non-zero exit when the function fails), so that kpt can
// call porchbot's built-ins, e.g.
//
//	kpt fn eval --exec "porchbot fn set-namespace" -- namespace=prod
//
// or from a Kptfile pipeline with `exec: porchbot fn set-namespace`. The name
// may also be a catalog image ("gcr.io/kpt-fn/set-namespace:v0.4.1").
// Without a name it lists the built-ins.
func runFn(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" || args[0] == "list" {
		return listFns(stdout)
	}
	spec, ok := builtins.Lookup(args[0])
	if !ok {
		return fmt.Errorf("unknown function %q; built-in functions: %s", args[0], strings.Join(builtins.Names(), ", "))
	}
	if len(args) > 1 {
		return fmt.Errorf("%s takes its configuration from the ResourceList functionConfig, not from arguments %q",
			spec.Name, args[1:])
	}
	rw := &kio.ByteReadWriter{Reader: stdin, Writer: stdout, KeepReaderAnnotations: true}
	if err := framework.Execute(spec.New(), rw); err != nil {
		return fmt.Errorf("%s: %w", spec.Name, err)
	}
	return nil
}

func listFns(w io.Writer) error {
	fmt.Fprintln(w, "Usage: porchbot fn <name>   (reads a KRM ResourceList on stdin, writes it to stdout)")
	fmt.Fprintln(w, "\nBuilt-in functions (matched by image name, e.g. gcr.io/kpt-fn/<name>:<tag>):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range builtins.All() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, s.Kind, s.Summary)
	}
	return tw.Flush()
}
