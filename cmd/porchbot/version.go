package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// version is the release, set at build time with
// -ldflags "-X main.version=v1.2.3" (make build stamps `git describe`).
var version = ""

// versionString is the release and the VCS revision the binary was built
// from: the stamped release, else the module version (go install …@v1.2.3),
// else "devel"; the revision and a "+dirty" mark from Go's build info.
func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	if !ok {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
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
	return v + " " + info.GoVersion
}

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	_, err := fmt.Fprintln(stdout, "porchbot", versionString())
	return err
}
