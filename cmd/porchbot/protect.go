package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/protect"
)

// repoList is --repo, given once per repository.
type repoList []string

func (r *repoList) String() string     { return strings.Join(*r, ",") }
func (r *repoList) Set(v string) error { *r = append(*r, v); return nil }

// runProtect makes porchbot's checks required on deployment branches with
// an administrator's token (GITHUB_TOKEN), never the App's.
func runProtect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("protect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var repos repoList
	fs.Var(&repos, "repo", "owner/name of a repository to protect (repeat for more)")
	branch := fs.String("branch", "", "the deployment branch (default: each repository's default branch)")
	githubURL := fs.String("github-url", os.Getenv("PORCHBOT_GITHUB_URL"), "GitHub base URL (empty: github.com; GHES or the local forge: its base URL)")
	appID := fs.Int64("app-id", envInt64("PORCHBOT_APP_ID"), "bind the checks to porchbot's App, so that no other maker's check of the same name counts (0: any maker)")
	enforceAdmins := fs.Bool("enforce-admins", false, "bind administrators too, on a branch that had no protection")
	setUsage(fs, stderr, "porchbot protect --repo OWNER/NAME [--repo …] [--branch B] [--app-id N] [--enforce-admins]",
		"Make porchbot/render and porchbot/approval required checks on each repository's deployment branch,",
		"so that GitHub refuses to merge a proposal porchbot has not passed. Adds to a branch's protection,",
		"never takes anything away. Runs with an administrator's token in GITHUB_TOKEN (the App does not",
		"ask for the administration permission).")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 || len(repos) == 0 {
		fs.Usage()
		return errors.New("protect needs at least one --repo and no arguments")
	}
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		return errors.New("protect needs an administrator's token in GITHUB_TOKEN")
	}
	urls, err := ghclient.ParseBaseURL(*githubURL)
	if err != nil {
		return err
	}
	gh := github.NewClient(&http.Client{Timeout: time.Minute}).WithAuthToken(token)
	if urls.Enterprise {
		if gh, err = gh.WithEnterpriseURLs(urls.API, urls.Uploads); err != nil {
			return err
		}
	}
	var failed []string
	for _, full := range repos {
		owner, name, ok := strings.Cut(full, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("--repo %q: want owner/name", full)
		}
		b := *branch
		if b == "" {
			r, _, err := gh.Repositories.Get(ctx, owner, name)
			if err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", full, err)
				failed = append(failed, full)
				continue
			}
			b = r.GetDefaultBranch()
		}
		out, err := protect.Protect(ctx, gh.Repositories, owner, name, b, protect.Options{AppID: *appID, EnforceAdmins: *enforceAdmins})
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", full, err)
			failed = append(failed, full)
			continue
		}
		switch {
		case out.Created:
			fmt.Fprintf(stdout, "%s %s: protected; required checks %s\n", full, b, strings.Join(out.Required, ", "))
		case len(out.Added) > 0:
			fmt.Fprintf(stdout, "%s %s: added %s; required checks %s\n", full, b, strings.Join(out.Added, ", "), strings.Join(out.Required, ", "))
		default:
			fmt.Fprintf(stdout, "%s %s: already requires %s\n", full, b, strings.Join(protect.Checks, " and "))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("not protected: %s", strings.Join(failed, ", "))
	}
	return nil
}

// envInt64 is the environment variable's integer (0 when unset or not one).
func envInt64(name string) int64 {
	n, _ := strconv.ParseInt(os.Getenv(name), 10, 64)
	return n
}
