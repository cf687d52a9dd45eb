package packages

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDraftBranch(t *testing.T) {
	tests := []struct {
		ref, pkg, ws string
		ok           bool
	}{
		{"refs/heads/drafts/upf/ws1", "upf", "ws1", true},
		{"refs/heads/drafts/network/upf/my-change", "network/upf", "my-change", true},
		{"refs/heads/drafts/a/b/c/d", "a/b/c", "d", true},
		{"refs/heads/drafts/upf", "", "", false},
		{"refs/heads/drafts/upf/", "", "", false},
		{"refs/heads/drafts//ws", "", "", false},
		{"refs/heads/drafts/upf/My_Change", "", "", false},
		{"refs/heads/drafts/.github/ws", "", "", false},
		{"refs/heads/main", "", "", false},
		{"refs/tags/drafts/upf/ws", "", "", false},
		{"drafts/upf/ws", "", "", false},
	}
	for _, tt := range tests {
		pkg, ws, ok := ParseDraftBranch(tt.ref)
		if pkg != tt.pkg || ws != tt.ws || ok != tt.ok {
			t.Errorf("ParseDraftBranch(%q) = (%q, %q, %v), want (%q, %q, %v)", tt.ref, pkg, ws, ok, tt.pkg, tt.ws, tt.ok)
		}
	}
	if pkg, ws, ok := ParseDraftBranchName("drafts/network/upf/ws"); !ok || pkg != "network/upf" || ws != "ws" {
		t.Errorf("ParseDraftBranchName = %q %q %v", pkg, ws, ok)
	}
}

func TestCheckDraftBranchName(t *testing.T) {
	if _, _, err := CheckDraftBranchName("main"); !errors.Is(err, ErrNotDraft) {
		t.Errorf("main: %v, want ErrNotDraft", err)
	}
	_, _, err := CheckDraftBranchName("drafts/upf/Bad_WS")
	if !errors.Is(err, ErrInvalidWorkspace) || !strings.Contains(err.Error(), "RFC 1123") {
		t.Errorf("bad workspace: %v", err)
	}
	_, _, err = CheckDraftBranchName("drafts/a..b/ws")
	if !errors.Is(err, ErrInvalidName) {
		t.Errorf("bad package: %v", err)
	}
	_, _, err = CheckDraftBranchName("drafts/ws")
	if err == nil || !strings.Contains(err.Error(), "drafts/<package>/<workspace>") {
		t.Errorf("no workspace: %v", err)
	}
}

func TestBranchNames(t *testing.T) {
	if got := DraftBranch("network/upf", "ws"); got != "drafts/network/upf/ws" {
		t.Errorf("DraftBranch = %q", got)
	}
	if got := DraftRef("upf", "ws"); got != "refs/heads/drafts/upf/ws" {
		t.Errorf("DraftRef = %q", got)
	}
	if pkg, ws, ok := ParseDraftBranch(DraftRef("a/b", "c")); !ok || pkg != "a/b" || ws != "c" {
		t.Errorf("round trip: %q %q %v", pkg, ws, ok)
	}
	if got := UpdateBranch("network/upf"); got != "porch/update/network/upf" {
		t.Errorf("UpdateBranch = %q", got)
	}
	if pkg, ok := ParseUpdateBranchName("porch/update/network/upf"); !ok || pkg != "network/upf" {
		t.Errorf("ParseUpdateBranchName = %q %v", pkg, ok)
	}
	for _, b := range []string{"porch/update/", "porch/update/a..b", "porch/upf", "main"} {
		if _, ok := ParseUpdateBranchName(b); ok {
			t.Errorf("ParseUpdateBranchName(%q) ok", b)
		}
	}
}

func TestLabels(t *testing.T) {
	if LabelProposed != "porch/proposed" || LabelDeletionProposed != "porch/deletion-proposed" || LabelUpdate != "porch/update" {
		t.Error("label constants changed")
	}
}
