package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/settings"
	"github.com/porchbot/porchbot/internal/words"
)

// runValidateConfig is `porchbot validate-config FILE [flags]`: it checks a
// repository configuration (.github/porchbot.yaml) as the bot would, and
// prints "FILE: ok" or every problem as "file:line:col: message", one per
// line, so editors can jump to them. The flags give the server limits to
// check against, as `porchbot serve` takes them (settings.LimitFlags: the
// same flags, environment variables and defaults).
func runValidateConfig(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limitsOf := settings.LimitFlags(fs, os.Getenv)
	orgDir := fs.String("org", "", "a checkout of the organisation's .github repository, for the presets `extends: [org, org:<name>]` reads (porchbot.yaml, porchbot/<name>.yaml)")
	setUsage(fs, stderr, "porchbot validate-config FILE [flags]",
		"Checks a repository configuration (.github/porchbot.yaml) against the server limits given by the flags",
		"(or their environment variables), with the defaults of `porchbot serve`. A file that extends presets",
		"is checked with them, and the values they set are listed with the file and line each came from.")
	// Flags may come before or after FILE.
	files, err := parseInterleaved(fs, args, 1)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if errors.Is(err, errArgCount) {
		return errors.New("give exactly one FILE")
	} else if err != nil {
		return err
	}
	file := files[0]

	limits, err := limitsOf()
	if err != nil {
		return err
	}

	data, err := readBounded(file, config.Limits.MaxBytes)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: no such file (a repository without %s uses the defaults)", file, config.Path)
	}
	var prov config.Provenance
	if err == nil {
		_, prov, err = config.ParseChain(file, data, limits, dirPresets(*orgDir))
	}
	var verr *config.ValidationError
	switch {
	case err == nil:
		if _, werr := fmt.Fprintf(stdout, "%s: ok\n", file); werr != nil {
			return werr
		}
		return printProvenance(stdout, file, prov)
	case errors.As(err, &verr):
		for _, p := range verr.Problems {
			if _, werr := fmt.Fprintln(stdout, p.String()); werr != nil {
				return werr
			}
		}
		return fmt.Errorf("%s: %s", file, words.Count(len(verr.Problems), "problem", "problems"))
	default:
		return fmt.Errorf("%s: %w", file, err)
	}
}

// readBounded reads a file of at most limit bytes; a larger one is not read
// but reported as a problem, like Parse reports it.
func readBounded(name string, limit int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > int64(limit) {
		return nil, &config.ValidationError{Problems: []config.Problem{{
			File: name, Line: 1, Column: 1,
			Message: fmt.Sprintf("file is %d bytes, larger than the %d allowed", st.Size(), limit),
		}}}
	}
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}

// dirPresets reads organisation presets from a checkout of the
// organisation's .github repository (nil: none given).
func dirPresets(dir string) config.PresetReader {
	if dir == "" {
		return nil
	}
	return func(name string) (string, []byte, bool, error) {
		rel := "porchbot.yaml"
		if name != "" {
			rel = filepath.Join("porchbot", name+".yaml")
		}
		p := filepath.Join(dir, rel)
		data, err := readBounded(p, config.Limits.MaxBytes)
		if errors.Is(err, os.ErrNotExist) {
			return p, nil, false, nil
		}
		if err != nil {
			return p, nil, false, err
		}
		return p, data, true, nil
	}
}

// printProvenance lists, for a file that extends presets, every value
// the chain sets and the file and line it came from.
func printProvenance(w io.Writer, file string, prov config.Provenance) error {
	fromPresets := false
	for _, from := range prov {
		if !strings.HasPrefix(from, file+":") {
			fromPresets = true
		}
	}
	if !fromPresets {
		return nil
	}
	fields := make([]string, 0, len(prov))
	width := 0
	for f := range prov {
		fields = append(fields, f)
		width = max(width, len(f))
	}
	sort.Strings(fields)
	if _, err := fmt.Fprintln(w, "Where each value comes from (any other is the default):"); err != nil {
		return err
	}
	for _, f := range fields {
		if _, err := fmt.Fprintf(w, "  %-*s  %s\n", width, f, prov[f]); err != nil {
			return err
		}
	}
	return nil
}
