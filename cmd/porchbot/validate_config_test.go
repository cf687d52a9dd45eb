package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/settings"
)

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "porchbot.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateConfigOK(t *testing.T) {
	p := writeConfig(t, "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nfunctions:\n  exec: {kubeconform: /bin/kc}\napprovals: {allowSelfApproval: true}\n")
	var out, errOut bytes.Buffer
	// Flags before or after FILE.
	for _, args := range [][]string{{p, "--exec-allowlist", "a,kubeconform"}, {"--exec-allowlist=kubeconform", p}} {
		out.Reset()
		if err := runValidateConfig(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if out.String() != p+": ok\n" {
			t.Errorf("stdout = %q", out.String())
		}
	}
}

func TestValidateConfigProblems(t *testing.T) {
	p := writeConfig(t, "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\naprovals: {}\nfunctions:\n  exec: {kubeconform: /bin/kc}\napprovals: {allowSelfApproval: true, required: 1}\n")
	var out, errOut bytes.Buffer
	err := runValidateConfig(context.Background(), []string{p, "--forbid-self-approval", "--min-approvals", "2"}, &out, &errOut)
	if err == nil || err.Error() != p+": 4 problems" {
		t.Errorf("err = %v", err)
	}
	want := strings.Join([]string{
		p + `:3:1: unknown field "aprovals" (did you mean "approvals"?)`,
		p + `:5:10: functions.exec.kubeconform: the server does not allow exec function "kubeconform" (its exec allowlist is empty)`,
		p + `:6:32: approvals.allowSelfApproval: the server does not allow self-approval; remove the setting or set it to false`,
		p + `:6:48: approvals.required: the server requires at least 2 approvals; a repository may ask for more, not fewer`,
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestValidateConfigUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runValidateConfig(context.Background(), nil, &out, &errOut); err == nil || !strings.Contains(errOut.String(), "Usage: porchbot validate-config FILE") {
		t.Errorf("no FILE: err=%v stderr=%q", err, errOut.String())
	}
	err := runValidateConfig(context.Background(), []string{filepath.Join(t.TempDir(), "missing.yaml")}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	if err := runValidateConfig(context.Background(), []string{"--bogus", "x"}, &out, &errOut); err == nil {
		t.Error("unknown flag accepted")
	}
}

func TestValidateConfigTooLarge(t *testing.T) {
	p := writeConfig(t, "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n#"+strings.Repeat("x", 1<<20)+"\n")
	var out, errOut bytes.Buffer
	err := runValidateConfig(context.Background(), []string{p}, &out, &errOut)
	if err == nil || !strings.HasPrefix(out.String(), p+":1:1: file is ") {
		t.Errorf("err=%v stdout=%q", err, out.String())
	}
}

// TestValidateConfigUsesServeDefaults: validate-config judges a file with
// the limits `porchbot serve` applies by default (one table of defaults:
// the settings), so a file that validates behaves the same when served.
func TestValidateConfigUsesServeDefaults(t *testing.T) {
	s, err := settings.Parse(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	over := s.MaxPRConcurrentLimit + 1
	p := writeConfig(t, fmt.Sprintf("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nupdates:\n  prConcurrentLimit: %d\n", over))
	var out, errOut bytes.Buffer
	err = runValidateConfig(context.Background(), []string{p}, &out, &errOut)
	if err == nil || !strings.Contains(out.String(), p+":4:22: updates.prConcurrentLimit") {
		t.Fatalf("a limit over serve's default --max-pr-concurrent-limit (%d): err=%v stdout=%q", s.MaxPRConcurrentLimit, err, out.String())
	}
	out.Reset()
	if err := runValidateConfig(context.Background(), []string{p, "--max-pr-concurrent-limit", fmt.Sprint(over)}, &out, &errOut); err != nil {
		t.Fatalf("within an explicit limit: %v %q", err, out.String())
	}
}

// A file that extends the organisation's preset and a built-in one is
// checked with them (--org: a checkout of the organisation's .github
// repository), and each value is listed with the file and line it came
// from; without --org, the organisation's preset is a problem at its line.
func TestValidateConfigResolvesExtends(t *testing.T) {
	org := t.TempDir()
	if err := os.MkdirAll(filepath.Join(org, "porchbot"), 0o755); err != nil {
		t.Fatal(err)
	}
	head := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"
	if err := os.WriteFile(filepath.Join(org, "porchbot.yaml"), []byte(head+"approvals:\n  required: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(org, "porchbot", "edge.yaml"), []byte(head+"updates:\n  labels: [edge]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := writeConfig(t, head+"extends: [org, org:edge, porchbot:check-only]\nlifecycle:\n  releases: false\n")
	var out, errOut bytes.Buffer
	if err := runValidateConfig(context.Background(), []string{p, "--org", org}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := p + ": ok\nWhere each value comes from (any other is the default):\n" +
		"  approvals.required  " + filepath.Join(org, "porchbot.yaml") + ":4\n" +
		"  lifecycle.releases  " + p + ":5\n" +
		"  render.onDraftPush  preset porchbot:check-only:4\n" +
		"  updates.labels      " + filepath.Join(org, "porchbot", "edge.yaml") + ":4\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	err := runValidateConfig(context.Background(), []string{p}, &out, &errOut)
	if err == nil || !strings.Contains(out.String(), p+`:3:11: extends[0]: "org" is read from the organisation's .github repository, which cannot be read here`) {
		t.Errorf("without --org: %v\n%s", err, out.String())
	}
}
