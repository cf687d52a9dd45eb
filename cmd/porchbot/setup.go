package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/porchbot/porchbot/internal/setup"
)

// runSetup creates the GitHub App from app.yaml through GitHub's manifest
// flow and writes its credentials.
func runSetup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	githubURL := fs.String("github-url", os.Getenv("PORCHBOT_GITHUB_URL"), "GitHub base URL (empty: github.com; GHES or the local forge: its base URL)")
	webhookURL := fs.String("webhook-url", "", "the App's webhook URL, https://<your host>/api/github/hook (default: app.yaml's placeholder, to change in the App's settings)")
	org := fs.String("org", "", "create the App owned by this organization (default: your user)")
	catalogURL := fs.String("catalog-url", "", "where porchbot will serve its web catalog (https://<your host>): the App's sign-in comes back to <URL>"+setup.CatalogCallbackPath+", and the env file turns the catalog on")
	out := fs.String("out", "porchbot.env", "env file to write (the private key goes beside it as .pem); both 0600, never overwritten")
	secret := fs.String("secret", "", "print a Kubernetes Secret of this name (keys private-key.pem, webhook-secret, client-id, client-secret) instead of writing files")
	setUsage(fs, stderr, "porchbot setup [--github-url URL] [--org ORG] [--webhook-url URL] [--catalog-url URL] [--out FILE | --secret NAME]",
		"Creates the GitHub App from app.yaml with GitHub's manifest flow (a local page in your browser) and",
		"writes its id, private key and webhook secret to an env file, or prints them as a Kubernetes Secret.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *secret == "" {
		if err := setup.CheckFree(*out); err != nil {
			return err
		}
	}
	creds, err := setup.Run(ctx, setup.Options{GitHubURL: *githubURL, WebhookURL: *webhookURL, Org: *org,
		CatalogURL: *catalogURL, Listening: func(u string) {
			fmt.Fprintf(stderr, "Open %s in your browser to create the GitHub App (waiting for GitHub to send you back).\n", u)
		}})
	if err != nil {
		return err
	}
	creds.GitHubURL, creds.CatalogURL = *githubURL, *catalogURL
	if *secret != "" {
		fmt.Fprint(stdout, setup.SecretYAML(*secret, creds))
		fmt.Fprintf(stderr, "GitHub App %s created: helm install ... --set github.appId=%d --set github.existingSecret=%s\n", creds.Slug, creds.AppID, *secret)
		fmt.Fprint(stderr, setupNextSteps(creds))
		return nil
	}
	pemPath, err := setup.WriteEnvFile(*out, creds)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "GitHub App %s (id %d) created: credentials in %s, private key in %s\n", creds.Slug, creds.AppID, *out, pemPath)
	fmt.Fprint(stderr, setupNextSteps(creds))
	return nil
}

// setupNextSteps is what to do once the App exists: install it, and make
// its checks required on the deployment branches (docs/operations.md).
func setupNextSteps(creds setup.Credentials) string {
	url := ""
	if creds.GitHubURL != "" {
		url = " --github-url " + creds.GitHubURL
	}
	return "Next: install the App on the repositories that hold packages (its page's \"Install App\"), then make its\n" +
		"checks required on each deployment branch, so that GitHub refuses to merge what porchbot has not passed:\n" +
		fmt.Sprintf("  GITHUB_TOKEN=<an administrator's token> porchbot protect --repo OWNER/NAME --app-id %d%s\n", creds.AppID, url)
}
