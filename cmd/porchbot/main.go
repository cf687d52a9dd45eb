// Command porchbot is the porchbot GitHub App: `porchbot serve` runs the
// webhook server (against GitHub, GitHub Enterprise Server, or, with no App
// credentials, its embedded local forge).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/suggest"
)

// command is one subcommand; the table is the help.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdio stdio) error
}

// stdio are a command's standard streams.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// noStdin adapts a command that reads no standard input.
func noStdin(run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) func(context.Context, []string, stdio) error {
	return func(ctx context.Context, args []string, s stdio) error { return run(ctx, args, s.out, s.err) }
}

func commands() []command {
	return []command{
		{"setup", "create the GitHub App from app.yaml (GitHub's manifest flow in your browser) and write its credentials", noStdin(runSetup)},
		{"protect", "make porchbot/render and porchbot/approval required checks on deployment branches (an administrator's GITHUB_TOKEN)", noStdin(runProtect)},
		{"serve", "run the webhook server (embedded local forge when no App credentials are set)", noStdin(runServe)},
		{"render", "render a kpt package as kpt fn render does (same flags, output and errors), with porchbot's built-ins", noStdin(runRender)},
		{"index", "build (or verify) the package index index.yaml of a repository, from a checkout or a git URL", noStdin(runIndex)},
		{"update", "update a kpt package in place from its upstream, as kpt pkg update does (conflicts listed; --on-conflict)", noStdin(runUpdate)},
		{"merge3", "the 3-way merge of kpt pkg update on three directories (--origin, --updated, --local, written in place); conflicts as a table or JSON", noStdin(runMerge3)},
		{"validate-config", "check a .github/porchbot.yaml (file:line:col: message per problem)", noStdin(runValidateConfig)},
		{"demo", "the narrated package lifecycle on the embedded local forge (--keep to explore it afterwards)", noStdin(runDemo)},
		{"fn", "run a built-in function as a KRM exec function (ResourceList on stdin and stdout)",
			func(ctx context.Context, args []string, s stdio) error { return runFn(ctx, args, s.in, s.out, s.err) }},
		{"version", "print the release, the VCS revision and the Go version (also --version)", noStdin(runVersion)},
	}
}

func main() {
	// porchbot runs again as the sandbox of a function that runs user code
	if code, ok := render.RunSandboxChild(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

func run(ctx context.Context, args []string, s stdio) int {
	stdout, stderr := s.out, s.err
	if len(args) == 0 { // a usage error, as an unknown command is
		fmt.Fprintln(stderr, "porchbot: no command given")
		fmt.Fprintln(stderr)
		usage(stderr)
		return 2
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	for _, c := range commands() {
		if c.name == args[0] {
			help := wantsHelp(args[1:])
			if help {
				s.err = s.out // help in one place: standard output, exit 0
			}
			if err := c.run(ctx, args[1:], s); err != nil {
				if help && errors.Is(err, flag.ErrHelp) {
					return 0
				}
				if !errors.As(err, new(reportedError)) {
					fmt.Fprintf(stderr, "porchbot %s: %v\n", c.name, err)
				}
				return 1
			}
			return 0
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if near := suggest.Best(args[0], names); near != "" {
		fmt.Fprintf(stderr, "porchbot: unknown command %q; did you mean %q?\n\n", args[0], near)
	} else {
		fmt.Fprintf(stderr, "porchbot: unknown command %q\n\n", args[0])
	}
	usage(stderr)
	return 2
}

// wantsHelp: do a subcommand's arguments ask for its help (-h, -help or
// --help before any "--")?
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "porchbot: the kpt package lifecycle as a GitHub App")
	fmt.Fprintln(w, "\nUsage: porchbot <command> [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
}
