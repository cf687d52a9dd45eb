package fleet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/rollout"
)

// TestCheckRunReportOfRealPayloads: GitHub's example check_run payloads
// (another App's runs) are reports named after the run, on its head, at
// its completion; the same run by porchbot's own App is none.
func TestCheckRunReportOfRealPayloads(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "github-payloads", "check_run", "completed*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("real payloads are required (testdata/github-payloads): %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var ev github.CheckRunEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		run := ev.GetCheckRun()
		rep, ok := CheckRunReport(&ev, "porchbot[bot]")
		want, known := map[string]string{"success": rollout.Success, "failure": rollout.Failure, "neutral": rollout.Success}[run.GetConclusion()]
		if !known || !ok || rep.State != want || rep.Context != run.GetName() || rep.SHA != run.GetHeadSHA() || !rep.At.Equal(run.GetCompletedAt().Time) {
			t.Errorf("%s: report %+v (%v) of run %s %s/%s", p, rep, ok, run.GetName(), run.GetStatus(), run.GetConclusion())
		}
		if _, ok := CheckRunReport(&ev, run.GetApp().GetSlug()+"[bot]"); ok {
			t.Errorf("%s: the App's own run is a report", p)
		}
	}
}
