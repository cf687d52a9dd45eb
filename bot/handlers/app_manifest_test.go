package handlers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/bot/ingress"
)

// installationEvents are sent to every App without a subscription.
var installationEvents = []string{"installation", "installation_repositories"}

// TestAppManifestMatchesHandlers keeps app.yaml, docs/app-permissions.md
// and the handlers in step: the manifest subscribes to exactly the events
// porchbot handles (the installation events aside, which need no
// subscription), and the page has one row for every event handled and
// every permission asked for, and none for anything else.
func TestAppManifestMatchesHandlers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		DefaultEvents      []string          `yaml:"default_events"`
		DefaultPermissions map[string]string `yaml:"default_permissions"`
	}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	subscribed := append(slices.Clone(m.DefaultEvents), installationEvents...)
	sort.Strings(subscribed)
	for _, h := range []ingress.Handlers{DefaultHandlers()} {
		var handled []string
		for name := range h {
			handled = append(handled, name)
		}
		sort.Strings(handled)
		if !slices.Equal(handled, subscribed) {
			t.Errorf("handled events %v, app.yaml subscribes to %v (+ %v)", handled, m.DefaultEvents, installationEvents)
		}
	}
	for _, e := range installationEvents {
		if slices.Contains(m.DefaultEvents, e) {
			t.Errorf("app.yaml subscribes to %s, which GitHub sends every App unasked", e)
		}
	}

	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "app-permissions.md"))
	if err != nil {
		t.Fatal(err)
	}
	events, perms := docRows(string(doc), "## Events"), docRows(string(doc), "## Permissions")
	if !slices.Equal(events, subscribed) {
		t.Errorf("docs/app-permissions.md explains events %v, the App handles %v", events, subscribed)
	}
	var asked []string
	for p, access := range m.DefaultPermissions {
		asked = append(asked, p)
		if !regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(p) + "` \\| " + regexp.QuoteMeta(access) + " \\|").Match(doc) {
			t.Errorf("docs/app-permissions.md does not give %s its access %s", p, access)
		}
	}
	sort.Strings(asked)
	if !slices.Equal(perms, asked) {
		t.Errorf("docs/app-permissions.md explains permissions %v, app.yaml asks for %v", perms, asked)
	}
}

// docRows are the first cells (`name`) of the table under heading, sorted.
func docRows(doc, heading string) []string {
	_, after, ok := strings.Cut(doc, heading+"\n")
	if !ok {
		return nil
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(after, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}
