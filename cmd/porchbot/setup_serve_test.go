package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// readEnvFile reads KEY=value lines (comments skipped).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(k, "#") {
			vars[k] = v
		}
	}
	return vars
}

// jsonLines hands over the "listen" address of serve's JSON log and keeps
// every line.
type jsonLines struct {
	listen chan string
	lines  chan map[string]any
}

func (j *jsonLines) pump(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			m = map[string]any{"not-json": sc.Text()}
		}
		if addr, ok := m["listen"].(string); ok {
			select {
			case j.listen <- addr:
			default:
			}
		}
		select {
		case j.lines <- m:
		default:
		}
	}
}

// TestSetupCredentialsServe (#10 proof): `porchbot setup` against the
// forge writes an env file; `porchbot serve` started with exactly that
// environment (and the forge as its GitHub) passes its credential check
// at start, is ready, and accepts the forge's webhooks signed with the
// secret setup wrote — while a delivery signed with another secret is
// refused. Its log is JSON.
func TestSetupCredentialsServe(t *testing.T) {
	env := forgetest.New(t)
	out := filepath.Join(t.TempDir(), "porchbot.env")
	page, _, done := runSetupAsync(t, context.Background(), "--github-url", env.Forge.BaseURL(),
		"--webhook-url", "https://bot.example.org/api/github/hook", "--out", out)
	if status, body, _ := browse(t, page); status != http.StatusOK {
		t.Fatalf("callback answered %d: %s", status, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	vars := readEnvFile(t, out)
	for _, k := range []string{"PORCHBOT_APP_ID", "PORCHBOT_PRIVATE_KEY_PATH", "PORCHBOT_WEBHOOK_SECRET"} {
		if vars[k] == "" {
			t.Fatalf("env file lacks %s: %v", k, vars)
		}
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	logs := &jsonLines{listen: make(chan string, 1), lines: make(chan map[string]any, 1000)}
	pumped := make(chan struct{})
	go func() { logs.pump(pr); close(pumped) }()
	served := make(chan error, 1)
	go func() {
		served <- runServe(ctx, []string{"--listen", "127.0.0.1:0", "--github-url", env.Forge.BaseURL(),
			"--data-dir", t.TempDir(), "--log-format", "json", "--resync-interval", "0"}, io.Discard, pw) // the log is on standard error
		pw.Close()
	}()
	var addr string
	select {
	case addr = <-logs.listen:
	case err := <-served:
		t.Fatalf("serve with setup's credentials stopped: %v", err)
	}
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz %d", resp.StatusCode)
	}

	// The forge delivers an event signed with setup's secret: accepted.
	// Signed with another: refused.
	alice := env.Client(forgetest.AliceToken)
	issue, _, err := alice.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("hello")})
	if err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)
	deliver := func(secret string) int {
		t.Helper()
		env.Forge.SetWebhook("http://"+addr+"/api/github/hook", []byte(secret))
		n := len(env.Forge.Deliveries())
		if _, _, err := alice.Issues.CreateComment(ctx, "acme", "catalog", issue.GetNumber(), &github.IssueComment{Body: github.String("a comment")}); err != nil {
			t.Fatal(err)
		}
		env.WaitDeliveries(t)
		ds := env.Forge.Deliveries()
		if len(ds) == n {
			t.Fatal("no delivery")
		}
		return ds[len(ds)-1].Status
	}
	if status := deliver(vars["PORCHBOT_WEBHOOK_SECRET"]); status != http.StatusAccepted && status != http.StatusOK {
		t.Fatalf("a delivery signed with setup's secret answered %d", status)
	}
	if status := deliver("not-the-secret"); status != http.StatusUnauthorized && status != http.StatusForbidden && status != http.StatusBadRequest {
		t.Fatalf("a delivery signed with another secret answered %d", status)
	}

	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	<-pumped
	close(logs.lines)
	for m := range logs.lines {
		if _, bad := m["not-json"]; bad {
			t.Errorf("--log-format json wrote a line that is not JSON: %q", m["not-json"])
		}
	}
}
