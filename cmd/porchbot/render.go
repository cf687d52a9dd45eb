package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/render"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// runRender implements `porchbot render [DIR] [--results-dir D] [--allow-exec]
// [--exec-allowlist a,b] [--output yaml|json]`: it renders the package in
// place the way `kpt fn render` does (built-in functions for images, exec
// functions only with --allow-exec), prints kpt's FunctionResultList on
// stdout, one line per function on stderr, and fails when kpt would.
func runRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	resultsDir := fs.String("results-dir", "", "also write the FunctionResultList to `DIR`/results.yaml")
	allowExec := fs.Bool("allow-exec", false, "run `exec:` functions (as kpt's --allow-exec)")
	allowlist := fs.String("exec-allowlist", "", "with --allow-exec, only these exec programs (comma-separated paths or names)")
	output := fs.String("output", "yaml", "format of the results on stdout: yaml or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: porchbot render [DIR] [flags]   (DIR defaults to the current directory)")
		fs.PrintDefaults()
	}
	var positional []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(positional) > 1 {
		return fmt.Errorf("expected one package directory, got %q", positional)
	}
	dir := "."
	if len(positional) == 1 {
		dir = positional[0]
	}
	if *output != "yaml" && *output != "json" {
		return fmt.Errorf("--output must be yaml or json, not %q", *output)
	}
	opts := render.Options{AllowExec: *allowExec}
	if *allowExec {
		opts.ExecAllowlist = []string{"*"}
		if strings.TrimSpace(*allowlist) != "" {
			opts.ExecAllowlist = strings.Split(*allowlist, ",")
		}
	}

	start := time.Now()
	res, err := render.Render(ctx, filesys.MakeFsOnDisk(), dir, opts)
	for _, s := range res.Steps {
		status := map[render.StepStatus]string{render.StepOK: "PASS", render.StepFailed: "FAIL", render.StepSkipped: "SKIP"}[s.Status]
		fmt.Fprintf(stderr, "[%s] %q in %s (package %s)\n", status, s.Function(), s.Duration.Round(time.Millisecond), s.Package)
		for _, r := range s.Results {
			sev := string(r.Severity)
			if sev == "" {
				sev = "info"
			}
			fmt.Fprintf(stderr, "  [%s] %s\n", sev, r.Message)
		}
	}

	var out []byte
	var encErr error
	if *output == "json" {
		out, encErr = res.Results.JSON()
		out = append(out, '\n')
	} else {
		out, encErr = res.Results.YAML()
	}
	if encErr != nil {
		return encErr
	}
	if _, werr := stdout.Write(out); werr != nil {
		return werr
	}
	if *resultsDir != "" {
		y, yerr := res.Results.YAML()
		if yerr != nil {
			return yerr
		}
		if mkErr := os.MkdirAll(*resultsDir, 0o755); mkErr != nil {
			return mkErr
		}
		if wErr := os.WriteFile(filepath.Join(*resultsDir, "results.yaml"), y, 0o644); wErr != nil {
			return wErr
		}
	}
	if err != nil {
		if errors.Is(err, render.ErrIncomplete) {
			return fmt.Errorf("%w (run with --allow-exec to run exec functions)", err)
		}
		return err
	}
	fmt.Fprintf(stderr, "Successfully executed %d function(s) in %d package(s) in %s; %d file(s) changed, %d deleted.\n",
		len(res.Steps), res.Packages, time.Since(start).Round(time.Millisecond), len(res.Changed), len(res.Deleted))
	return nil
}
