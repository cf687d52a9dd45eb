package setup

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// checkForgeApp refuses a manifest flow against porchbot's local forge
// while a porchbot in the embedded mode holds its one App: the flow would
// replace that App's key and webhook secret, and the running porchbot
// would refuse every webhook afterwards. The forge says so at
// GET <base>/_forge/app; GitHub and GHES answer 404 there, and anything
// but a held App lets the flow go on.
func checkForgeApp(ctx context.Context, githubURL string) error {
	base := strings.TrimSuffix(strings.TrimSpace(githubURL), "/")
	if base == "" || strings.HasSuffix(base, "api.github.com") {
		return nil
	}
	base = strings.TrimSuffix(base, "/api/v3")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/_forge/app", nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil // the flow's own requests say what is wrong
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var hold struct {
		HeldBy string `json:"heldBy"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&hold) != nil || hold.HeldBy == "" {
		return nil
	}
	return errors.New("setup: " + base + " is porchbot's local forge, and its App belongs to " + hold.HeldBy +
		": creating an App there would replace its key and webhook secret, and every webhook would be refused " +
		"afterwards. The embedded mode needs no setup; run porchbot setup against GitHub or GitHub Enterprise Server")
}
