package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemo runs `porchbot demo` end to end: porchbot on its embedded
// forge, the whole story from an empty catalog to a downstream clone, each
// step checked by the demo itself; here, that it succeeded, said what it
// had to, accounted for every call and cleaned up.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs the whole lifecycle")
	}
	dataDir := filepath.Join(t.TempDir(), "demo")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"demo", "--data-dir", dataDir}, stdio{in: strings.NewReader(""), out: &stdout, err: &stderr})
	transcript := stdout.String()
	if code != 0 {
		t.Fatalf("porchbot demo exited %d: %s\n%s", code, stderr.String(), transcript)
	}
	for _, want := range []string{
		"1. alice creates the upstream catalog acme/catalog",
		"POST /orgs/acme/repos",
		`alice     comments on #1: /porch init network/upf --description "User plane function"`,
		"porchbot  created branch drafts/network/upf/v1",
		`"Render network/upf" on top`,
		"check run porchbot/render: success",
		"gcr.io/kpt-fn/set-namespace:v0.4.1  mutator  ✅ passed",
		"gcr.io/kpt-fn/set-labels:v0.2.0",
		"porchbot  opened pull request #2",
		"labelled porch/proposed",
		"check run porchbot/approval: action_required",
		"bob       reviews #2: APPROVED",
		`check run porchbot/approval: success — "Approved (1/1)"`,
		"porchbot  tagged network/upf/v1 at",
		"Revision 1 of package network/upf",
		"- @bob",
		"alice     comments on #1: /porch clone acme/catalog/network/upf@v1 upf",
		"porchbot  created branch drafts/upf/v1 in acme/edge-1",
		"upstreamLock:",
		"ref: network/upf/v1",
		"API calls per step",
		"7. /porch clone (downstream)",
		"The story went as expected: 7 steps.",
	} {
		if !strings.Contains(transcript, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	// Every call is someone's: the forge's count of porchbot's calls
	// equals porchbot's own (a mismatch is marked with "!").
	if m := regexp.MustCompile(`(?m)^  (\d\. .*|total .*)\d!`).FindString(transcript); m != "" {
		t.Errorf("calls not accounted for: %q", m)
	}
	if total := regexp.MustCompile(`(?m)^  total +(\d+) +(\d+) +(\d+) `).FindStringSubmatch(transcript); total == nil || total[3] == "0" {
		t.Errorf("no total of porchbot's calls: %v", total)
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", transcript)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "porchbot.log")); err != nil {
		t.Errorf("no log: %v", err)
	}
}

func TestDemoRefusesArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"demo", "now"}, stdio{out: &stdout, err: &stderr}); code != 1 ||
		!strings.Contains(stderr.String(), `porchbot demo: unexpected argument "now"`) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
