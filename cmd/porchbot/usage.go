package main

import (
	"flag"
	"fmt"
	"io"
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
			fs.PrintDefaults()
		}
	}
}
