package packages

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	long := strings.Repeat("a", 98) + "/" + strings.Repeat("b", 98) + "/cc" // 200 bytes
	tests := []struct {
		name string
		want string // "" = valid, else a substring of the error
	}{
		{"upf", ""},
		{"network/upf", ""},
		{"a/b/c-d_e.f", ""},
		{"Caps/Mixed", ""},
		{"café/naïve", ""},
		{"v1", ""},
		{"a@b", ""},
		{"", "empty"},
		{"/abs", "relative path"},
		{"trailing/", "must not end with /"},
		{"a//b", "empty path segment"},
		{"./a", "relative path segments"},
		{"a/./b", "relative path segments"},
		{"a/../b", "relative path segments"},
		{"..", "relative path segments"},
		{".github/workflows", "cannot live under .github"},
		{".GitHub", "cannot live under .github"},
		{"a/.hidden", "starts with a dot"},
		{"a b", "space"},
		{"a\tb", "control character"},
		{"a\x7fb", "control character"},
		{"a\u00a0b", "non-printing"},
		{"a\u200bb", "non-printing"},
		{"a\u202eb", "non-printing"},
		{"a~1", `"~"`},
		{"a^b", `"^"`},
		{"a:b", `":"`},
		{"a?b", `"?"`},
		{"a*b", `"*"`},
		{"a[b", `"["`},
		{`a\b`, `"\\"`},
		{"a..b", `".."`},
		{"a@{b", `"@{"`},
		{"@", `lone "@"`},
		{"x/@/y", `lone "@"`},
		{"a.lock", ".lock"},
		{"a.lock/b", ".lock"},
		{"a.", "ends with a dot"},
		{"a./b", "ends with a dot"},
		{"-a", "starts with a dash"},
		{"\xff", "UTF-8"},
		{strings.Repeat("a", 101), "more than 100"},
		{long, ""},
		{long + "/d", "more than 200"},
		{strings.Repeat("ab/", 67) + "c", "more than 200"},
	}
	for _, tt := range tests {
		err := ValidateName(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateName(%q) = %v, want ok", tt.name, err)
		case tt.want != "" && err == nil:
			t.Errorf("ValidateName(%q) = ok, want error with %q", tt.name, tt.want)
		case tt.want != "" && !strings.Contains(err.Error(), tt.want):
			t.Errorf("ValidateName(%q) = %v, want it to mention %q", tt.name, err, tt.want)
		case err != nil && !errors.Is(err, ErrInvalidName):
			t.Errorf("ValidateName(%q) error does not wrap ErrInvalidName", tt.name)
		}
	}
}

func TestValidateWorkspace(t *testing.T) {
	for ws, ok := range map[string]bool{
		"ws": true, "my-feature-2": true, "0": true, strings.Repeat("a", 63): true,
		"": false, "Ws": false, "my_feature": false, "-a": false, "a-": false, "a.b": false,
		"a/b": false, strings.Repeat("a", 64): false,
	} {
		err := ValidateWorkspace(ws)
		if (err == nil) != ok {
			t.Errorf("ValidateWorkspace(%q) = %v, want ok=%v", ws, err, ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidWorkspace) {
			t.Errorf("ValidateWorkspace(%q) error does not wrap ErrInvalidWorkspace", ws)
		}
	}
}

// refCorpus is a set of tricky names checked against git itself.
var refCorpus = []string{
	"main", "release/1.0", "feature/x-y_z", "a.b", "v1", "café", "a@b", "@", "a@{b", "a..b", "a.", ".a", "a/.b",
	"a.lock", "a/b.lock/c", "a b", "a\tb", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", `a\b`, "a//b", "/a", "a/",
	"-a", "HEAD", "a/-b", "a\u00a0b", "x.lock.y", "a..", "...", "a/..b", "a/b..",
}

func gitCheckRef(t *testing.T, args ...string) bool {
	t.Helper()
	err := exec.Command("git", append([]string{"check-ref-format"}, args...)...).Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("git check-ref-format: %v", err)
	}
	return err == nil
}

func TestValidateBranchNameAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, name := range refCorpus {
		ours := ValidateBranchName(name) == nil
		gits := gitCheckRef(t, "--branch", name)
		// porchbot is stricter on purpose for leading dashes, invisible
		// characters and "@" (git's shorthand for HEAD); it must never
		// accept what git refuses.
		if ours && !gits {
			t.Errorf("ValidateBranchName(%q) accepts a name git refuses", name)
		}
		stricter := strings.HasPrefix(name, "-") || strings.ContainsRune(name, '\u00a0') || name == "@"
		if !ours && gits && !stricter {
			t.Errorf("ValidateBranchName(%q) refuses a name git accepts: %v", name, ValidateBranchName(name))
		}
	}
}

func TestValidNamesMakeValidRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, name := range refCorpus {
		if ValidateName(name) != nil {
			continue
		}
		for _, ref := range []string{TagRef(name, 1), DraftRef(name, "ws"), "refs/heads/" + UpdateBranch(name)} {
			if !gitCheckRef(t, ref) {
				t.Errorf("package %q is valid but git refuses %s", name, ref)
			}
		}
	}
}
