package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// setUsage gives fs porchbot's one form of help: "Usage: porchbot …", a
// blank line and what the command does, then its flags, if any.
func setUsage(fs *flag.FlagSet, w io.Writer, usage string, about ...string) {
	fs.Usage = func() {
		fmt.Fprintln(w, "Usage: "+usage)
		if len(about) > 0 {
			fmt.Fprintln(w)
			for _, line := range about {
				fmt.Fprintln(w, line)
			}
		}
		flags := false
		fs.VisitAll(func(*flag.Flag) { flags = true })
		if flags {
			fmt.Fprintln(w, "\nFlags:")
			printFlags(fs)
		}
	}
}

// printFlags is flag.PrintDefaults with porchbot's one flag style,
// "--name" ("-o" for a one-letter shorthand), as README and every message
// write them (Go's flag package accepts both forms).
func printFlags(fs *flag.FlagSet) {
	w := fs.Output()
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if len(f.Name) == 1 {
			line = "  -" + f.Name // a one-letter shorthand, as kpt writes -o
		}
		if name != "" {
			line += " " + name
		}
		if len(line) <= 6 { // a short flag: its usage on the same line
			line += "\t"
		} else {
			line += "\n    \t"
		}
		line += strings.ReplaceAll(usage, "\n", "\n    \t")
		if d := f.DefValue; d != "" && d != "false" && d != "0" && !(name == "string" && d == "") {
			if name == "string" {
				line += fmt.Sprintf(" (default %q)", d)
			} else {
				line += fmt.Sprintf(" (default %v)", d)
			}
		}
		fmt.Fprintln(w, line)
	})
}
