package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/porchbot/porchbot/internal/index"
)

// runIndex is `porchbot index <dir|git-url> [-o FILE] [--repository owner/name]`
// and `porchbot index verify <index.yaml> <dir|git-url>`.
func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "verify" {
		return runIndexVerify(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the index to `FILE` (default: standard output)")
	repo := fs.String("repository", "", "the repository name the index records (default: owner/name from the URL, or from the checkout's origin remote)")
	root := fs.String("root", ".", "the repository's packages.root: package P lives in ROOT/P")
	branch := fs.String("branch", index.DefaultBranch, "the repository's lifecycle.indexBranch, whose index gives the approvers")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: porchbot index <dir|git-url> [-o FILE] [--repository owner/name] [--root ROOT] [--branch BRANCH]")
		fmt.Fprintln(stderr, "       porchbot index verify <index.yaml> <dir|git-url>")
		fmt.Fprintln(stderr, "\nBuilds the package index (index.yaml) of a repository from its tags <package>/v<N>, as porchbot")
		fmt.Fprintln(stderr, "keeps it on the porch/index branch: the same bytes for the same repository. Approvers, which git")
		fmt.Fprintln(stderr, "does not hold, and downstream packages, which live in other repositories, are carried over from")
		fmt.Fprintln(stderr, "the index on the repository's porch/index branch.")
		fmt.Fprintln(stderr, "verify recomputes every revision's digest and reports moved tags and changed content.")
		fmt.Fprintln(stderr, "\nFlags:")
		printFlags(fs)
	}
	where, err := parseInterleaved(fs, args, 1)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	src, name, err := index.OpenBranch(ctx, where[0], *branch)
	if err != nil {
		return err
	}
	if *repo != "" {
		name = *repo
	}
	prev, err := src.Previous()
	if err != nil {
		return fmt.Errorf("the index on %s: %w", index.DefaultBranch, err)
	}
	idx, err := index.Build(ctx, src, index.Options{Repository: name, Root: *root, Previous: prev})
	if err != nil {
		return err
	}
	data, err := index.Encode(idx)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}

func runIndexVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("index verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository's packages.root: package P lives in ROOT/P")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: porchbot index verify <index.yaml> <dir|git-url> [--root ROOT]")
		printFlags(fs)
	}
	pos, err := parseInterleaved(fs, args, 2)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	data, err := readBounded(pos[0], int(index.MaxTreeBytes))
	if err != nil {
		return err
	}
	idx, err := index.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	src, _, err := index.Open(ctx, pos[1])
	if err != nil {
		return err
	}
	problems, err := index.Verify(ctx, idx, src, *root)
	if err != nil {
		return err
	}
	revisions := 0
	for _, p := range idx.Packages {
		revisions += len(p.Revisions)
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problem(s) in %d revision(s) of %s", len(problems), revisions, pos[0])
	}
	_, err = fmt.Fprintf(stdout, "%s: %d revision(s) of %d package(s) verified\n", pos[0], revisions, len(idx.Packages))
	return err
}

// errArgCount is parseInterleaved's error for too few or too many arguments.
var errArgCount = errors.New("wrong number of arguments")

// parseInterleaved parses flags that may come before or after the n
// positional arguments it returns.
func parseInterleaved(fs *flag.FlagSet, args []string, n int) ([]string, error) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return nil, err // flag.ErrHelp after -h: the caller returns nil
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		rest = rest[1:]
	}
	if len(pos) != n {
		fs.Usage()
		return nil, fmt.Errorf("%w: want %d, got %d", errArgCount, n, len(pos))
	}
	return pos, nil
}
