package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/render/yamlsize"
	"github.com/porchbot/porchbot/internal/update"
)

// merge3Usage is the command's synopsis.
const merge3Usage = "Usage: porchbot merge3 --origin O --updated U --local L [--strategy S] [--on-conflict upstream|local|fail] [-o table|json]"

// runMerge3 implements `porchbot merge3`: the 3-way merge of `kpt pkg
// update` on three directories (the upstream package before and after, and
// the local copy), the result written into the local directory. Conflicts
// (fields both sides changed) go to stdout as a table or JSON; the local
// directory is written only when the merge succeeded.
func runMerge3(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("merge3", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	origin := fl.String("origin", "", "the upstream package at the revision the local copy was fetched from (`DIR`)")
	updated := fl.String("updated", "", "the upstream package at the new revision (`DIR`)")
	local := fl.String("local", "", "the local package, updated in place (`DIR`, a kpt package)")
	strategy := fl.String("strategy", "", "update strategy: "+strings.Join(kptfile.UpdateStrategies, ", ")+" (default: the local Kptfile's upstream.updateStrategy, else resource-merge)")
	onConflict := fl.String("on-conflict", update.SideUpstream, "the side a field both changed takes: upstream (as kpt), local, or fail (write nothing, exit 1)")
	var output string
	fl.StringVar(&output, "output", "table", "conflicts as a `table` or as json")
	fl.StringVar(&output, "o", "table", "shorthand for --output")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, merge3Usage)
			fl.SetOutput(stdout)
			printFlags(fl)
			return nil
		}
		return fmt.Errorf("%w\n%s", err, merge3Usage)
	}
	switch {
	case fl.NArg() > 0:
		return fmt.Errorf("unexpected argument %q\n%s", fl.Arg(0), merge3Usage)
	case *origin == "" || *updated == "" || *local == "":
		return fmt.Errorf("--origin, --updated and --local are required\n%s", merge3Usage)
	case output != "table" && output != "json":
		return fmt.Errorf("-o %q: want table or json", output)
	}
	switch *onConflict {
	case update.SideUpstream, update.SideLocal, update.SideFail:
	default:
		return fmt.Errorf("--on-conflict %q: want upstream, local or fail", *onConflict)
	}

	var trees [3]update.Files
	for i, d := range []string{*origin, *updated, *local} {
		files, err := readPackageDir(d)
		if err != nil {
			return err
		}
		if err := update.CheckFiles(filepath.ToSlash(d), files); err != nil {
			return err
		}
		trees[i] = files
	}
	if _, ok := trees[2][kptfile.FileName]; !ok {
		return fmt.Errorf("%s: not a kpt package: no Kptfile", *local)
	}
	res, err := update.Merge(trees[0], trees[1], trees[2], update.Options{Strategy: *strategy, OnConflict: *onConflict})
	if perr := printConflicts(stdout, output, res.Conflicts); perr != nil {
		return perr
	}
	if err != nil {
		if errors.Is(err, update.ErrConflicts) {
			return fmt.Errorf("%w: %s left as it was", err, *local)
		}
		return err
	}
	changed, removed, err := writePackageDir(*local, trees[2], res.Files)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "Updated %s: %d file(s) written, %d removed, %d conflict(s).\n", *local, changed, removed, len(res.Conflicts))
	return nil
}

func printConflicts(w io.Writer, output string, cs []update.Conflict) error {
	if output == "json" {
		return update.WriteJSON(w, cs)
	}
	return update.WriteTable(w, cs)
}

// readPackageDir reads a package directory into Files, bounded as render
// bounds a package (number of files, bytes, estimated YAML nodes); .git is
// skipped, a symbolic link or other special file is refused.
func readPackageDir(dir string) (update.Files, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	files := update.Files{}
	var total, nodes int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (symbolic links and special files are not merged)", p)
		}
		if len(files) >= render.DefaultMaxFiles {
			return fmt.Errorf("%s: input too large: more than %d files", dir, render.DefaultMaxFiles)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if total+info.Size() > render.DefaultMaxBytes {
			return fmt.Errorf("%s: input too large: more than %d bytes", dir, render.DefaultMaxBytes)
		}
		b, err := readAtMost(p, render.DefaultMaxBytes-total)
		if err != nil {
			return err
		}
		total += int64(len(b))
		if nodes += yamlsize.EstimateNodes(b); nodes > render.DefaultMaxYAMLNodes {
			return fmt.Errorf("%s: input too large: more than %d YAML nodes", dir, render.DefaultMaxYAMLNodes)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}

// readAtMost reads a file that must not be larger than limit bytes (it may
// have grown since it was listed).
func readAtMost(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s: input too large", p)
	}
	return b, err
}

// writePackageDir makes dir hold after instead of before: files that
// changed or are new are written, files no longer there removed (and the
// directories that held them, once empty).
func writePackageDir(dir string, before, after update.Files) (changed, removed int, err error) {
	names := make([]string, 0, len(after))
	for p := range after {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if old, ok := before[p]; ok && bytes.Equal(old, after[p]) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return changed, removed, err
		}
		if err := os.WriteFile(dst, after[p], 0o644); err != nil {
			return changed, removed, err
		}
		changed++
	}
	var gone []string
	for p := range before {
		if _, ok := after[p]; !ok {
			gone = append(gone, p)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(gone)))
	for _, p := range gone {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return changed, removed, err
		}
		removed++
		for d := filepath.Dir(filepath.FromSlash(p)); d != "."; d = filepath.Dir(d) {
			if os.Remove(filepath.Join(dir, d)) != nil {
				break // not empty
			}
		}
	}
	return changed, removed, nil
}
