package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/porchbot/porchbot/bot/demo"
)

// runDemo is `porchbot demo`: porchbot on its embedded local forge, in this
// process, and the narrated package lifecycle told through it.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o demo.Options
	fs.BoolVar(&o.Keep, "keep", false, "keep porchbot and the forge running after the story, until Ctrl-C")
	fs.StringVar(&o.DataDir, "data-dir", "", "where the demo's repositories, caches and clones go (default: a temporary directory, removed unless the demo fails)")
	fs.StringVar(&o.LogFile, "log-file", "", "porchbot's and the forge's log (default: <data-dir>/porchbot.log)")
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:0", "porchbot's webhook address")
	fs.StringVar(&o.ForgeListen, "forge-listen", "127.0.0.1:0", "the embedded forge's address")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: porchbot demo [flags]\n\n"+
			"Runs porchbot on its embedded local forge (no GitHub account needed) and tells a package's life through it:\n"+
			"a catalog, /porch init, a push rendered by porchbot, /porch propose, an approving review, the merge\n"+
			"published as a tag and a release, and /porch clone into a downstream repository.\n\nFlags:\n")
		printFlags(fs)
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.Out = stdout
	return demo.Run(ctx, o)
}
