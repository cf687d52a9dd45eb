package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/update"
)

// updateBounds bound the upstream trees `porchbot update` reads, as
// readPackageDir bounds the local one: the render limits' defaults.
const (
	updateMaxFiles       = render.DefaultMaxFiles
	updateMaxBytes int64 = render.DefaultMaxBytes
)

// runUpdate implements `porchbot update DIR[@REF] [--strategy S]
// [--on-conflict upstream|local|fail]`: `kpt pkg update` with porchbot's
// merge engine and its conflicts table.
func runUpdate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("update", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strategy := fs.String("strategy", "", "update strategy: "+strings.Join(kptfile.UpdateStrategies, ", ")+
		" (default: the Kptfile's upstream.updateStrategy, else resource-merge)")
	onConflict := fs.String("on-conflict", update.SideUpstream,
		"when both sides changed a field: upstream (take upstream's value, as kpt), local (keep yours) or fail (change nothing, exit 1)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: porchbot update DIR[@REF] [--strategy S] [--on-conflict upstream|local|fail]")
		fmt.Fprintln(fs.Output(), "Updates the kpt package in DIR in place from the upstream its Kptfile names (as kpt pkg update).")
		printFlags(fs)
	}
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		fs.Usage()
		return errors.New("want exactly one DIR[@REF]")
	}
	if *strategy != "" && !slices.Contains(kptfile.UpdateStrategies, *strategy) {
		return fmt.Errorf("--strategy %q: want one of %s", *strategy, strings.Join(kptfile.UpdateStrategies, ", "))
	}
	switch *onConflict {
	case update.SideUpstream, update.SideLocal, update.SideFail:
	default:
		return fmt.Errorf("--on-conflict %q: want upstream, local or fail", *onConflict)
	}
	dir, ref := splitDirRef(positional[0])
	cache, err := os.MkdirTemp("", "porchbot-update-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	store, err := gitstore.New(gitstore.Options{Dir: cache, AllowLocalAndSSH: true,
		MaxTreeFiles: updateMaxFiles, MaxTreeBytes: updateMaxBytes, Logger: errorsOnly(stderr)})
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := updatePackage(ctx, store, updateRequest{Dir: dir, Ref: ref, Strategy: *strategy, OnConflict: *onConflict})
	if len(res.conflicts) > 0 {
		fmt.Fprintf(stdout, "%d conflicting change(s):\n", len(res.conflicts))
		if werr := update.WriteTable(stdout, res.conflicts); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Updated %s to %s@%s (%s, commit %s): %d file(s) written, %d removed.\n",
		dir, res.lock.Repo, res.requested, res.lock.Ref, res.lock.Commit, res.written, res.removed)
	return nil
}

// errorsOnly logs git layer errors, nothing else, to w.
func errorsOnly(w io.Writer) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(logrus.ErrorLevel)
	return l
}

// splitDirRef splits DIR@REF; a DIR that exists with an "@" in its name
// is taken whole.
func splitDirRef(arg string) (dir, ref string) {
	if _, err := os.Stat(arg); err == nil {
		return arg, ""
	}
	if i := strings.LastIndex(arg, "@"); i > 0 {
		return arg[:i], arg[i+1:]
	}
	return arg, ""
}
