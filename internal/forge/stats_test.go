package forge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestStats(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	sha := chkSeedCommit(t, env, "main", map[string]string{"a": "1\n"})
	alice := env.Client(forgetest.AliceToken)
	inst := env.Client(env.InstallationToken(t))

	req, _ := http.NewRequest(http.MethodDelete, env.Forge.BaseURL()+"/_forge/stats", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /_forge/stats: %v %v", resp, err)
	}
	resp.Body.Close()
	before := env.Forge.Stats().Snapshot()
	if len(before) != 0 {
		t.Fatalf("after reset: %v", before)
	}
	for i := 0; i < 2; i++ {
		if _, _, err := alice.Repositories.Get(ctx, "acme", "catalog"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{Name: "r", HeadSHA: sha}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", "main", nil); err != nil {
		t.Fatal(err)
	}
	_, _, _ = alice.Repositories.GetReleaseByTag(ctx, "acme", "catalog", "network/upf/v9") // 404, still counted
	r, _ := alice.NewRequest(http.MethodGet, "no/such/endpoint", nil)
	_, _ = alice.Do(ctx, r, nil)

	after := env.Forge.Stats().Snapshot()
	want := map[string]int64{
		"GET /repos/{owner}/{repo}":                             2,
		"POST /repos/{owner}/{repo}/check-runs":                 1,
		"GET /repos/{owner}/{repo}/commits/{ref:.+}/check-runs": 1,
		"GET /repos/{owner}/{repo}/releases/tags/{tag:.+}":      1,
		"GET (unrouted)": 1,
	}
	delta := forge.StatsDelta(before, after)
	if !reflect.DeepEqual(delta, want) {
		t.Fatalf("delta = %v\nwant    %v", delta, want)
	}
	if n := forge.SumREST(delta); n != 6 {
		t.Errorf("SumREST = %d, want 6", n)
	}

	// Over HTTP: the same counts, keys sorted.
	resp, err = http.Get(env.Forge.BaseURL() + "/_forge/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Calls map[string]int64 `json:"calls"`
		Keys  []string         `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(body.Calls, after) || !sort.StringsAreSorted(body.Keys) || len(body.Keys) != len(after) {
		t.Fatalf("GET /_forge/stats = %+v, want %v", body, after)
	}
	// The control endpoints and git do not count as REST calls.
	if n := forge.SumREST(map[string]int64{"GIT upload-pack": 3, "GET /_forge/stats": 1, "GET /user": 2}); n != 2 {
		t.Errorf("SumREST with git and control keys = %d", n)
	}
}
