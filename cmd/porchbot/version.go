package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// version is the release and revision the VCS revision, set at build time
// with -ldflags "-X main.version=v1.2.3 -X main.revision=<commit>" (make
// build and make image stamp `git describe` and `git rev-parse HEAD`: a
// container build has no .git for Go to read).
var version, revision = "", ""

// versionString is the release and the VCS revision the binary was built
// from: the stamped release, else the module version (go install …@v1.2.3),
// else "devel"; the revision and a "+dirty" mark from Go's build info,
// else the stamped revision.
func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	rev, modified := revision, ""
	for i := 0; ok && i < len(info.Settings); i++ {
		switch s := info.Settings[i]; s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (" + rev
		if modified == "true" {
			v += "+dirty"
		}
		v += ")"
	}
	if ok {
		v += " " + info.GoVersion
	}
	return v
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, stderr, "porchbot version   (also porchbot --version)",
		"Prints the release, the VCS revision (12 digits, +dirty for a modified tree) and the Go version",
		"porchbot was built with; make build and make image stamp the release and the revision.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	_, err := fmt.Fprintln(stdout, "porchbot", versionString())
	return err
}
