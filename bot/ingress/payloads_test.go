package ingress

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// payloadsDir holds real GitHub example payloads (octokit/webhooks'
// examples, MIT licence beside them), one directory per X-GitHub-Event name.
var payloadsDir = filepath.Join("..", "..", "testdata", "github-payloads")

// payloadTypes is the go-github type of each event with example payloads
// (create, delete and release are kept for the forge's fidelity tests;
// porchbot has no handler for them).
var payloadTypes = map[string]reflect.Type{
	"check_run":                 reflect.TypeFor[*github.CheckRunEvent](),
	"check_suite":               reflect.TypeFor[*github.CheckSuiteEvent](),
	"create":                    reflect.TypeFor[*github.CreateEvent](),
	"delete":                    reflect.TypeFor[*github.DeleteEvent](),
	"installation":              reflect.TypeFor[*github.InstallationEvent](),
	"installation_repositories": reflect.TypeFor[*github.InstallationRepositoriesEvent](),
	"issue_comment":             reflect.TypeFor[*github.IssueCommentEvent](),
	"issues":                    reflect.TypeFor[*github.IssuesEvent](),
	"pull_request":              reflect.TypeFor[*github.PullRequestEvent](),
	"pull_request_review":       reflect.TypeFor[*github.PullRequestReviewEvent](),
	"push":                      reflect.TypeFor[*github.PushEvent](),
	"release":                   reflect.TypeFor[*github.ReleaseEvent](),
}

type payloadFile struct {
	event, name string
	body        []byte
}

// loadPayloads reads every payload file; a missing directory is a failure.
func loadPayloads(t testing.TB) []payloadFile {
	t.Helper()
	dirs, err := os.ReadDir(payloadsDir)
	if err != nil {
		t.Fatalf("real payloads are required (testdata/github-payloads): %v", err)
	}
	var files []payloadFile
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue // LICENSE
		}
		paths, err := filepath.Glob(filepath.Join(payloadsDir, dir.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) == 0 {
			t.Fatalf("no payloads in %s", dir.Name())
		}
		for _, p := range paths {
			body, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, payloadFile{event: dir.Name(), name: filepath.Base(p), body: body})
		}
	}
	return files
}

// expectedEnvelope reads what an event made of p must carry, with
// encoding/json.
func expectedEnvelope(t *testing.T, body []byte) (action, repo string, installation int64) {
	t.Helper()
	var p struct {
		Action     string
		Repository *struct {
			FullName string `json:"full_name"`
		}
		Installation *struct{ ID int64 }
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Repository != nil {
		repo = p.Repository.FullName
	}
	if p.Installation != nil {
		installation = p.Installation.ID
	}
	return p.Action, repo, installation
}

func TestRealPayloads(t *testing.T) {
	files := loadPayloads(t)
	t.Logf("%d payload files", len(files))

	rec := newRecorder(len(files))
	handlers := Handlers{}
	for name := range payloadTypes {
		handlers[name] = rec
	}
	ts := newTestServer(t, Options{Handlers: handlers}, true)

	seen := map[string]bool{}
	for _, f := range files {
		if _, ok := payloadTypes[f.event]; !ok {
			t.Fatalf("payloads for event %q, which porchbot does not handle: add it to payloadTypes", f.event)
		}
		seen[f.event] = true
		id := f.event + "/" + f.name
		if a := (delivery{event: f.event, id: id, body: f.body}).do(t, ts.url); a.status != http.StatusAccepted {
			t.Fatalf("%s: status %d: %s", id, a.status, a.message)
		}
	}
	for name := range payloadTypes {
		if !seen[name] {
			t.Errorf("no payload file for event %q", name)
		}
	}
	shutdown(t, ts.Server)

	handled := map[string]*Event{}
	for _, ev := range rec.recorded() {
		handled[ev.DeliveryID] = ev
	}
	for _, f := range files {
		t.Run(f.event+"/"+strings.TrimSuffix(f.name, ".json"), func(t *testing.T) {
			ev := handled[f.event+"/"+f.name]
			if ev == nil {
				t.Fatal("not handled")
			}
			if got, want := reflect.TypeOf(ev.Payload), payloadTypes[f.event]; got != want {
				t.Errorf("Payload is %v, want %v", got, want)
			}
			action, repo, installation := expectedEnvelope(t, f.body)
			if ev.Name != f.event || ev.Action != action || ev.Repo != repo || ev.InstallationID != installation {
				t.Errorf("event %s action=%q repo=%q installation=%d, want %s action=%q repo=%q installation=%d",
					ev.Name, ev.Action, ev.Repo, ev.InstallationID, f.event, action, repo, installation)
			}
			if !bytes.Equal(rec.rawBody(ev.DeliveryID), f.body) {
				t.Error("Raw is not the body sent")
			}
			// The typed payload agrees with the envelope read at ingress.
			typed, ok := ev.Payload.(interface{ GetInstallation() *github.Installation })
			if !ok {
				t.Fatalf("%T has no GetInstallation", ev.Payload)
			}
			if got := typed.GetInstallation().GetID(); got != ev.InstallationID {
				t.Errorf("typed installation id %d, envelope %d", got, ev.InstallationID)
			}
		})
	}
}
