package forge

import "testing"

// TestInstallationRateLimit: GitHub grants an installation 5,000 calls an
// hour, 50 more for each repository beyond 20, never more than 12,500.
func TestInstallationRateLimit(t *testing.T) {
	for repos, want := range map[int]int{0: 5000, 20: 5000, 21: 5050, 100: 9000, 170: 12500, 1000: 12500} {
		if got := installationRateLimit(repos); got != want {
			t.Errorf("%d repositories: %d, want %d", repos, got, want)
		}
	}
}
