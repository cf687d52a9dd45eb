package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

// catalog is an upstream with app/v1 and app/v2: v2 bumps the image, adds
// svc.yaml and removes old.yaml.
func catalog(t *testing.T) (up *upstreamtest.Repo, v1, v2 string) {
	up = upstreamtest.New(t)
	v1 = up.Release("app", "v1", map[string]string{"Kptfile": upKptfile, "deploy.yaml": deployment("1", "web:1"),
		"old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n", "README.md": "# app\n"})
	v2 = up.Release("app", "v2", map[string]string{"deploy.yaml": deployment("1", "web:2"), "old.yaml": "",
		"svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"})
	return up, v1, v2
}

// checkUpdatedKptfile: upstream.git.ref is the ref asked for, the lock
// the package tag and its commit (as kpt writes them).
func checkUpdatedKptfile(t *testing.T, dir, repo, commit string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "Kptfile"))
	if err != nil {
		t.Fatal(err)
	}
	kf, err := kptfile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	k := kf.Kptfile()
	if g := k.Upstream.Git; g.Ref != "v2" || g.Repo != repo || g.Directory != "/app" {
		t.Errorf("upstream.git = %+v", g)
	}
	if l := k.UpstreamLock.Git; l.Ref != "app/v2" || l.Commit != commit || l.Repo != repo {
		t.Errorf("upstreamLock.git = %+v", l)
	}
}

// TestUpdateFromLocalRepo updates over file:// and a plain path: the
// upstream's change lands, the local edit stays, files added and removed
// upstream follow.
func TestUpdateFromLocalRepo(t *testing.T) {
	requireEngine(t)
	up, v1, v2 := catalog(t)
	for _, repo := range []string{up.Dir, "file://" + up.Dir} {
		dir := writePkg(t, map[string]string{"Kptfile": downstreamKptfile(repo, v1), "deploy.yaml": deployment("3", "web:1"),
			"old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n", "README.md": "# app\n"})
		stdout, stderr, code := runUpdateCmd(dir + "@v2")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", repo, code, stdout, stderr)
		}
		got := snapshot(t, dir)
		if d := got["deploy.yaml"]; !strings.Contains(d, "image: web:2") || !strings.Contains(d, "replicas: 3") {
			t.Errorf("%s: deploy.yaml:\n%s", repo, d)
		}
		if _, ok := got["old.yaml"]; ok {
			t.Errorf("%s: old.yaml, removed upstream, is still there", repo)
		}
		if !strings.Contains(got["svc.yaml"], "kind: Service") {
			t.Errorf("%s: svc.yaml, added upstream, is missing: %v", repo, got)
		}
		checkUpdatedKptfile(t, dir, repo, v2)
		if !strings.Contains(stdout, "Updated "+dir) || strings.Contains(stdout, "conflict") {
			t.Errorf("%s: stdout %q", repo, stdout)
		}
	}
}

// TestUpdateConflicts: both sides change the image. upstream (default)
// takes v2's and lists the field; local keeps the local one; fail exits 1
// and writes nothing.
func TestUpdateConflicts(t *testing.T) {
	requireEngine(t)
	up, v1, _ := catalog(t)
	files := map[string]string{"Kptfile": downstreamKptfile(up.Dir, v1), "deploy.yaml": deployment("1", "web:mine"),
		"old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n", "README.md": "# app\n"}
	for _, tc := range []struct {
		side, image string
		code        int
	}{{"", "web:2", 0}, {"upstream", "web:2", 0}, {"local", "web:mine", 0}, {"fail", "web:mine", 1}} {
		dir := writePkg(t, files)
		before := snapshot(t, dir)
		args := []string{dir + "@v2"}
		if tc.side != "" {
			args = append(args, "--on-conflict", tc.side)
		}
		stdout, stderr, code := runUpdateCmd(args...)
		if code != tc.code {
			t.Fatalf("--on-conflict %q: exit %d, want %d\n%s%s", tc.side, code, tc.code, stdout, stderr)
		}
		if !strings.Contains(stdout, "deploy.yaml") || !strings.Contains(stdout, "web:mine") || !strings.Contains(stdout, "web:2") {
			t.Errorf("--on-conflict %q: the conflict is not listed:\n%s", tc.side, stdout)
		}
		after := snapshot(t, dir)
		if !strings.Contains(after["deploy.yaml"], "image: "+tc.image) {
			t.Errorf("--on-conflict %q: deploy.yaml:\n%s", tc.side, after["deploy.yaml"])
		}
		if tc.side == "fail" && !equalMaps(before, after) {
			t.Errorf("--on-conflict fail changed the package")
		}
	}
}

// TestUpdateOverHTTPFromForge fetches the upstream anonymously over http
// from a public repository of the embedded forge.
func TestUpdateOverHTTPFromForge(t *testing.T) {
	requireEngine(t)
	up, v1, v2 := catalog(t)
	env := forgetest.New(t)
	if _, err := env.Forge.CreateRepo("acme", "pub-catalog",
		forge.RepoOptions{Collaborators: map[string]forge.Permission{"alice": forge.PermWrite}}); err != nil {
		t.Fatal(err)
	}
	push := strings.Replace(env.GitURL("acme/pub-catalog"), "://", "://alice:"+forgetest.AliceToken+"@", 1)
	up.Git("push", "-q", push, "main", "--tags")
	repo := env.GitURL("acme/pub-catalog")
	dir := writePkg(t, map[string]string{"Kptfile": downstreamKptfile(repo, v1), "deploy.yaml": deployment("3", "web:1"),
		"old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n", "README.md": "# app\n"})
	stdout, stderr, code := runUpdateCmd(dir + "@v2")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if d := snapshot(t, dir)["deploy.yaml"]; !strings.Contains(d, "image: web:2") || !strings.Contains(d, "replicas: 3") {
		t.Errorf("deploy.yaml:\n%s", d)
	}
	checkUpdatedKptfile(t, dir, repo, v2)

	// a ref the forge's repository does not have
	_, stderr, code = runUpdateCmd(dir + "@v7")
	if code != 1 || !strings.Contains(stderr, `ref "v7"`) {
		t.Errorf("missing ref over http: exit %d, %s", code, stderr)
	}
}

// TestUpdateMatchesKpt runs kpt pkg update and porchbot update on two
// copies of one kpt pkg get, edited alike: the trees must be equal, byte
// for byte.
func TestUpdateMatchesKpt(t *testing.T) {
	requireEngine(t)
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt is not on PATH, so there is nothing to compare porchbot update with: ", err)
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
	for _, tc := range []struct {
		name  string
		v2    map[string]string // upstream's change from v1 (under app/; "" removes)
		local func(files map[string]string)
	}{
		{"upstream bumps, adds and removes; local scales", map[string]string{"deploy.yaml": deployment("1", "web:2"), "old.yaml": "", "svc.yaml": svc},
			func(f map[string]string) {
				f["deploy.yaml"] = strings.Replace(f["deploy.yaml"], "replicas: 1", "replicas: 3", 1)
			}},
		{"both change the image", map[string]string{"deploy.yaml": deployment("1", "web:2")},
			func(f map[string]string) {
				f["deploy.yaml"] = strings.Replace(f["deploy.yaml"], "image: web:1", "image: web:mine", 1)
			}},
		{"local adds a resource, upstream edits the README", map[string]string{"README.md": "# app\n\nNow with docs.\n"},
			func(f map[string]string) {
				f["extra.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"
			}},
		{"upstream adds a pipeline", map[string]string{"Kptfile": upKptfile + "pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      configMap:\n        namespace: web\n"},
			func(f map[string]string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := upstreamtest.New(t)
			up.Release("app", "v1", map[string]string{"Kptfile": upKptfile, "deploy.yaml": deployment("1", "web:1"),
				"old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n", "README.md": "# app\n"})
			up.Release("app", "v2", tc.v2)
			ws := upstreamtest.New(t) // a git work tree for the two downstream copies (kpt requires one)
			for _, name := range []string{"bykpt", "byporchbot"} {
				cmd := exec.Command(kpt, "pkg", "get", up.Dir+".git/app@v1", name)
				cmd.Dir = ws.Dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("kpt pkg get: %v\n%s", err, out)
				}
				dir := filepath.Join(ws.Dir, name)
				files := snapshot(t, dir)
				tc.local(files)
				for p, c := range files {
					if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			ws.Commit(nil)
			cmd := exec.Command(kpt, "pkg", "update", "bykpt@v2")
			cmd.Dir = ws.Dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("kpt pkg update: %v\n%s", err, out)
			}
			if stdout, stderr, code := runUpdateCmd(filepath.Join(ws.Dir, "byporchbot") + "@v2"); code != 0 {
				t.Fatalf("porchbot update: exit %d\n%s%s", code, stdout, stderr)
			}
			want, got := snapshot(t, filepath.Join(ws.Dir, "bykpt")), snapshot(t, filepath.Join(ws.Dir, "byporchbot"))
			if !strings.Contains(want["Kptfile"], "ref: app/v2") {
				t.Fatalf("kpt did not update:\n%s", want["Kptfile"])
			}
			// the two copies differ by name only (kpt pkg get names the Kptfile after the directory)
			want["Kptfile"] = strings.Replace(want["Kptfile"], "name: bykpt", "name: byporchbot", 1)
			for p := range union(want, got) {
				if want[p] != got[p] {
					t.Errorf("%s differs from kpt's:\n--- kpt\n%s\n--- porchbot\n%s", p, want[p], got[p])
				}
			}
		})
	}
}

func union(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
