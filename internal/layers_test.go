package internal_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// module is porchbot's module path.
const module = "github.com/porchbot/porchbot/"

// layers orders porchbot's packages from the top down
// (docs/architecture.md): a package may import its own layer and the
// layers below it, never one above. A layer is a package path and the
// packages under it; the longest match wins.
var layers = []string{
	"cmd",                         // the binary
	"charts",                      // the Helm chart's tests
	"bot/e2e",                     // end-to-end tests of the assembled service
	"bot/demo",                    // the narrated lifecycle
	"bot/service",                 // assembly: server, App, clients, embedded forge
	"bot/catalog",                 // the web catalog
	"bot",                         // the App: the reactions behind the handlers
	"bot/fleet",                   // fleet rollouts stepped on the App's events
	"bot/discovery",               // downstream discovery into the registry
	"bot/commands",                // /porch commands
	"bot/lifecycle",               // the lifecycle's map (doc.go) and its tests on the forge
	"bot/lifecycle/lifecycletest", // the forge rig the lifecycle's tests share
	"bot/lifecycle/resync",        // the resync: calls the rest
	"bot/lifecycle/dashboard",     // the Package dashboard issue
	"bot/lifecycle/rollout",       // fleet rollouts: waves gated by deployment health
	"bot/lifecycle/variant",       // variants carried out: clone, update, remove
	"bot/lifecycle/updates",       // update pull requests and their fan-out
	"bot/lifecycle/rebase",        // drafts rebased on a published revision
	"bot/lifecycle/publish",       // publish on merge: verdict, tag, release, notes, index
	"bot/lifecycle/proposals",     // propose, reject, delete, new drafts, clone, list
	"bot/lifecycle/approval",      // what a proposal is, the approval policy and its check
	"bot/lifecycle/rendercheck",   // draft render, the render and config checks
	"bot/lifecycle/onboarding",    // the "Configure porchbot" pull request
	"bot/lifecycle/core",          // sessions, the lease, commits, landings, revision tags, check runs
	"bot/handlers",                // the thin webhook handlers, one per event, and their reactor interfaces
	"bot/ingress",                 // the webhook ingress: imports nothing of bot/
	"internal",                    // the engines: never import bot/ or cmd/
}

func layerOf(pkg string) int {
	rel := strings.TrimPrefix(pkg, module)
	best, bestLen := -1, -1
	for i, l := range layers {
		if (rel == l || strings.HasPrefix(rel, l+"/")) && len(l) > bestLen {
			best, bestLen = i, len(l)
		}
	}
	return best
}

// TestImportsPointDown: no package of the module imports, in its code, a
// package of a layer above its own; and no engine (internal/) imports
// bot/ or cmd/ even in its tests. (Tests of the App's packages may
// assemble the whole service: the catalog's browser tests run the demo's
// world.)
func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		from := layerOf(p.ImportPath)
		if from < 0 {
			t.Errorf("%s is in no layer: add it to layers (docs/architecture.md)", p.ImportPath)
			continue
		}
		engine := layers[from] == "internal"
		for i, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			inTests := i >= len(p.Imports)
			if to := layerOf(imp); to < from && (!inTests || engine) {
				t.Errorf("%s (layer %s) imports %s (layer %s, above it)", p.ImportPath, layers[from], imp, layers[to])
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list gave %d packages", seen)
	}
}

// goGitHubEdge are the packages whose code may import go-github: the
// edge where GitHub's wire types meet porchbot (webhook handlers and
// ingress, the client layer behind hub.API, the forge that plays GitHub,
// the tools that talk to GitHub directly, and the rig whose users act on
// the forge). Everything else, the lifecycle above all, speaks hub's
// values (internal/hub, docs/architecture.md).
var goGitHubEdge = []string{
	"cmd/porchbot",
	"bot",
	"bot/handlers",
	"bot/fleet",
	"bot/discovery",
	"bot/ingress",
	"bot/service",
	"bot/demo",
	"bot/catalog",
	"bot/lifecycle/lifecycletest",
	"internal/github",
	"internal/forge",
	"internal/forge/forgetest",
	"internal/protect",
	"internal/redeliver",
	"internal/setup",
}

// TestGoGitHubStaysAtTheEdge: no package outside goGitHubEdge imports
// go-github in its code (tests may: they play GitHub's users).
func TestGoGitHubStaysAtTheEdge(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	edge := map[string]bool{}
	for _, p := range goGitHubEdge {
		edge[module+p] = true
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	lifecycle := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module+"bot/lifecycle/") {
			lifecycle++
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/google/go-github/") && !edge[p.ImportPath] {
				t.Errorf("%s imports %s: speak internal/hub's values, or add it to goGitHubEdge if it is GitHub's edge", p.ImportPath, imp)
			}
		}
	}
	if lifecycle < 9 {
		t.Fatalf("go list gave %d lifecycle packages", lifecycle)
	}
}
