// Package demo is porchbot's narrated demo: a running porchbot on its
// embedded local forge and a story told through it — alice creates a
// catalog, asks porchbot for a package, writes it, proposes it; bob
// approves; alice merges and porchbot publishes; alice clones the
// published package downstream — with every step checked and its API
// calls counted. `porchbot demo` tells it on a terminal; its test and the
// API-call benchmark (bot/e2e) reuse World.
package demo

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sirupsen/logrus"
)

// world is the forge's seed (world/seed.yaml) and the files it names.
//
//go:embed world
var world embed.FS

// Options configure Run.
type Options struct {
	// Out receives the transcript.
	Out io.Writer
	// DataDir holds everything the demo creates; "" is a temporary
	// directory, removed at the end unless the story failed.
	DataDir string
	// LogFile receives porchbot's and the forge's logs; "" is
	// <DataDir>/porchbot.log.
	LogFile string
	// Listen and ForgeListen are the bot's and the forge's addresses
	// (default 127.0.0.1:0).
	Listen, ForgeListen string
	// Keep keeps porchbot running after the story until ctx ends.
	Keep bool
}

// Run starts porchbot, tells the story and, with Keep, leaves the world
// running for the user to explore until ctx ends.
func Run(ctx context.Context, o Options) (err error) {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("the demo needs git on PATH: its users clone and push with it (%w)", err)
	}
	dataDir, temp := o.DataDir, o.DataDir == ""
	if temp {
		if dataDir, err = os.MkdirTemp("", "porchbot-demo-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	logPath := o.LogFile
	if logPath == "" {
		logPath = filepath.Join(dataDir, "porchbot.log")
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer func() {
		_ = logFile.Close()
		switch {
		case err != nil:
			err = fmt.Errorf("%w\n(porchbot's log: %s; the demo's files: %s)", err, logPath, dataDir)
		case temp:
			_ = os.RemoveAll(dataDir)
		}
	}()
	log := logrus.New()
	log.SetOutput(logFile)
	log.SetLevel(logrus.DebugLevel)
	log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, DisableColors: true})

	seedPath, err := writeSeed(dataDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "porchbot demo: the kpt package lifecycle on GitHub primitives, against porchbot's embedded local forge.\n")
	// The story sets its repositories up itself (alice commits the
	// catalog's configuration): no onboarding pull request in between.
	w, err := StartWorld(ctx, WorldOptions{DataDir: dataDir, Seed: seedPath, Listen: o.Listen, ForgeListen: o.ForgeListen, Log: log,
		Args: []string{"--onboarding", "off"}})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	fmt.Fprintf(out, "forge %s (GitHub API at %s), porchbot's webhooks %s; logs in %s\n",
		w.Forge.BaseURL(), w.Forge.APIURL(), w.Svc.HookURL, logPath)
	fmt.Fprintf(out, "Cast: alice (acme admin), bob (@acme/platform, approver). Users act only through the forge's REST API and git over HTTP.\n")
	res, err := Story(ctx, w, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nThe story went as expected: %d steps.\n", len(res.Steps))
	if !o.Keep {
		return nil
	}
	explore(out, w, res)
	fmt.Fprintf(out, "\nporchbot keeps running; press Ctrl-C to stop it.\n")
	<-ctx.Done()
	fmt.Fprintf(out, "\nStopping porchbot and the forge.\n")
	return nil
}

// writeSeed writes the embedded seed under dir and returns its path.
func writeSeed(dir string) (string, error) {
	err := fs.WalkDir(world, "world", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := world.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	return filepath.Join(dir, "world", "seed.yaml"), err
}

// explore tells the user where everything is, to carry on by hand.
func explore(out io.Writer, w *World, res *Result) {
	base := w.Forge.BaseURL()
	host := strings.TrimPrefix(base, "http://")
	fmt.Fprintf(out, "\nExplore it: the forge speaks GitHub's REST API and git over HTTP.\n\n")
	fmt.Fprintf(out, "  forge (GitHub API)  %s\n  porchbot webhooks   %s\n  porchbot metrics    %s\n  forge call counts   %s/_forge/stats\n",
		w.Forge.APIURL(), w.Svc.HookURL, strings.TrimSuffix(w.Svc.HookURL, "/api/github/hook")+"/metrics", base)
	fmt.Fprintf(out, "\nUsers and their tokens (a token is the git password, or `Authorization: token T`):\n")
	for _, u := range w.Svc.Embedded.Seed.Users {
		fmt.Fprintf(out, "  %-8s %s\n", u.Login, u.Token)
	}
	fmt.Fprintf(out, "\nWhat the story left:\n  issue         %s\n  proposal      %s\n  release       %s\n  edge draft    %s\n  alice's clone %s\n",
		res.Issue, res.PullRequest, res.Release, res.EdgeDraft, res.CatalogClone)
	fmt.Fprintf(out, "\nTry:\n")
	fmt.Fprintf(out, "  git clone http://alice:%s@%s/%s.git && cd edge-1 && git switch %s\n", w.Token("alice"), host, edge, edgeDraft)
	fmt.Fprintf(out, "  curl -s -H 'Authorization: token %s' %srepos/%s/releases\n", w.Token("alice"), w.Forge.APIURL(), catalog)
	fmt.Fprintf(out, "  curl -s -H 'Authorization: token %s' -d '{\"body\":\"/porch propose %s/v1\"}' %srepos/%s/issues/1/comments\n",
		w.Token("alice"), edgePkg, w.Forge.APIURL(), edge)
	fmt.Fprintf(out, "  curl -s -H 'Authorization: token %s' -d '{\"body\":\"/porch help\"}' %srepos/%s/issues/1/comments\n",
		w.Token("alice"), w.Forge.APIURL(), catalog)
}
