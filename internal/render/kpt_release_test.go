package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
)

// TestKptReleasesAsConfigured: render.kpt accepts exactly the releases the
// render reproduces, and a release is read with or without its "v".
func TestKptReleasesAsConfigured(t *testing.T) {
	var names []string
	for _, r := range KptReleases() {
		names = append(names, string(r))
	}
	if !slices.Equal(names, config.KptReleases) {
		t.Fatalf("render reproduces %v, render.kpt accepts %v", names, config.KptReleases)
	}
	for in, want := range map[string]KptRelease{"": DefaultKpt, "v1.0.0-beta.67": KptBeta67, "1.0.0-beta.56": KptBeta56} {
		if got, err := ParseKptRelease(in); err != nil || got != want {
			t.Errorf("ParseKptRelease(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseKptRelease("v1.0.0-beta.60"); err == nil || !strings.Contains(err.Error(), "it reproduces v1.0.0-beta.56, v1.0.0-beta.67") {
		t.Errorf("an unknown release: %v", err)
	}
}
