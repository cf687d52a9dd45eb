package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runCLI runs porchbot with args and returns its exit code and streams.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// TestVersionCommandAndFlag: `porchbot version` and `porchbot --version`
// print the same line: the stamped release and revision.
func TestVersionCommandAndFlag(t *testing.T) {
	oldV, oldR := version, revision
	t.Cleanup(func() { version, revision = oldV, oldR })
	version, revision = "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
	code, out, errOut := runCLI("version")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "porchbot v1.2.3 (0123456789ab) go") {
		t.Fatalf("version: %d %q %q", code, out, errOut)
	}
	if code, flagOut, _ := runCLI("--version"); code != 0 || flagOut != out {
		t.Fatalf("--version: %d %q, want %q", code, flagOut, out)
	}
	if code, _, _ := runCLI("version", "extra"); code == 0 {
		t.Fatal("version accepted an argument")
	}
}

// TestMakeBuildStampsVersion: the binary `make build` builds names its
// release (git describe) and the commit, never "devel". It builds
// porchbot as the Makefile says, into a temporary directory.
func TestMakeBuildStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED under -short: it runs make build; `make test` runs it")
	}
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "porchbot")
	cmd := exec.Command("make", "-s", "build", "BIN="+bin)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false") // as in a container build: no VCS info from Go
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("make build: %s", out)
	line := string(out)
	if strings.Contains(line, "devel") || !regexp.MustCompile(`^porchbot \S+ \(`+string(head[:12])+`(\+dirty)?\) go`).MatchString(line) {
		t.Fatalf("porchbot version of make build: %q (HEAD %s)", line, head[:12])
	}
}

// TestEverySubcommandHelp: every subcommand answers -h and --help in one
// form: its usage on standard output, starting "Usage: porchbot <name>",
// nothing on standard error, exit 0.
func TestEverySubcommandHelp(t *testing.T) {
	cases := [][]string{{"index", "verify"}}
	for _, c := range commands() {
		cases = append(cases, []string{c.name})
	}
	for _, words := range cases {
		name := strings.Join(words, " ")
		var first string
		for _, flag := range []string{"--help", "-h"} {
			code, out, errOut := runCLI(append(append([]string(nil), words...), flag)...)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: porchbot "+name) {
				t.Errorf("porchbot %s %s: exit %d, stdout %q, stderr %q", name, flag, code, firstLine(out), errOut)
				continue
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("porchbot %s: -h and --help differ", name)
			}
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestUnknownCommandSuggests: a misspelt subcommand names the nearest
// (srve → serve).
func TestUnknownCommandSuggests(t *testing.T) {
	code, _, errOut := runCLI("srve")
	if code != 2 || !strings.Contains(errOut, `did you mean "serve"`) {
		t.Fatalf("srve: %d %q", code, errOut)
	}
}
