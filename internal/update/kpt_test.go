package update

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// kptRun is what one `kpt pkg update` cost.
type kptRun struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

// needKpt skips the test when kpt or git is not on PATH.
func needKpt(tb testing.TB) {
	tb.Helper()
	for _, bin := range []string{"kpt", "git"} {
		if _, err := exec.LookPath(bin); err != nil {
			tb.Skipf("%s is not on PATH: the comparison with kpt pkg update is skipped", bin)
		}
	}
}

// kptUpdate does what make-case.sh does, on generated inputs: origin and
// updated are committed as app/v1 and app/v2 of a local upstream
// repository, `kpt pkg get …/app@v1` fetches app, edit changes its files,
// and `kpt pkg update app@v2` runs. It returns the local package before
// the update, kpt's result, the options that tell Merge the same revision,
// and what the update cost.
func kptUpdate(tb testing.TB, origin, updated Files, edit func(Files), strategy string) (local, expected Files, opts Options, run kptRun) {
	tb.Helper()
	dir := tb.TempDir()
	up, down := filepath.Join(dir, "upstream"), filepath.Join(dir, "downstream")
	sh := func(wd string, name string, args ...string) {
		tb.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=cases", "GIT_AUTHOR_EMAIL=cases@porchbot.invalid",
			"GIT_COMMITTER_NAME=cases", "GIT_COMMITTER_EMAIL=cases@porchbot.invalid")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	writeFiles(tb, filepath.Join(up, "app"), origin)
	sh(up, "git", "init", "-q")
	sh(up, "git", "add", "-A")
	sh(up, "git", "commit", "-qm", "v1")
	sh(up, "git", "tag", "app/v1")
	if err := os.RemoveAll(filepath.Join(up, "app")); err != nil {
		tb.Fatal(err)
	}
	writeFiles(tb, filepath.Join(up, "app"), updated)
	sh(up, "git", "add", "-A")
	sh(up, "git", "commit", "-q", "--allow-empty", "-m", "v2")
	sh(up, "git", "tag", "app/v2")

	if err := os.MkdirAll(down, 0o755); err != nil {
		tb.Fatal(err)
	}
	sh(down, "git", "init", "-q")
	sh(down, "git", "commit", "-q", "--allow-empty", "-m", "init")
	sh(down, "kpt", "pkg", "get", "file://"+up+".git/app@v1", "app")
	app := filepath.Join(down, "app")
	local = readDir(tb, app)
	edit(local)
	if err := os.RemoveAll(app); err != nil {
		tb.Fatal(err)
	}
	writeFiles(tb, app, local)
	sh(down, "git", "add", "-A")
	sh(down, "git", "commit", "-q", "--allow-empty", "-m", "local edits")

	args := []string{"pkg", "update", "app@v2"}
	if strategy != "" {
		args = append(args, "--strategy="+strategy)
	}
	cmd := exec.Command("kpt", args...)
	cmd.Dir = down
	start := time.Now()
	out, err := cmd.CombinedOutput()
	run.wall = time.Since(start)
	if err != nil {
		tb.Fatalf("kpt pkg update: %v\n%s", err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.maxRSS = ru.Maxrss << 10
	}
	run.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	expected = readDir(tb, app)
	opts = updateOptions(tb, expected)
	opts.Strategy = strategy
	return local, expected, opts, run
}

// updateOptions are the options that give Merge the revision kpt recorded.
func updateOptions(tb testing.TB, expected Files) Options {
	tb.Helper()
	f, err := kptfile.Parse(expected[kptfile.FileName])
	if err != nil {
		tb.Fatal(err)
	}
	lock := *f.Kptfile().UpstreamLock.Git
	return Options{Ref: f.Kptfile().Upstream.Git.Ref, Lock: &lock}
}

func writeFiles(tb testing.TB, dir string, files Files) {
	tb.Helper()
	for p, b := range files {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestMergeMatchesKptLive runs the real `kpt pkg update` on generated
// packages and edits and compares Merge's result with kpt's, byte for
// byte.
func TestMergeMatchesKptLive(t *testing.T) {
	needKpt(t)
	for _, c := range liveCases() {
		t.Run(c.name, func(t *testing.T) {
			origin := genUpdatePackage(c.resources, c.files)
			updated := c.upstream(origin)
			local, expected, opts, _ := kptUpdate(t, origin, updated, c.local, c.strategy)
			res, err := Merge(origin, updated, local, opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffFiles(res.Files, expected); d != "" {
				t.Errorf("Merge differs from kpt pkg update:\n%s", d)
			}
			if len(res.Conflicts) != c.conflicts {
				t.Errorf("%d conflicts, want %d: %+v", len(res.Conflicts), c.conflicts, res.Conflicts)
			}
		})
	}
}

type liveCase struct {
	name             string
	resources, files int
	upstream         func(Files) Files
	local            func(Files)
	conflicts        int
	strategy         string
}

func liveCases() []liveCase {
	return []liveCase{
		{"images-and-replicas", 30, 5, bumpImages, editReplicas(2), 0, ""},
		{"upstream-removes-and-adds", 30, 5, func(o Files) Files {
			u := bumpImages(o)
			delete(u, "resources-01.yaml")
			u["extra.yaml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  k: v\n")
			u["docs/NOTES.md"] = []byte("notes\n")
			return u
		}, editReplicas(3), 0, ""},
		{"conflicting-images", 12, 4, bumpImages, func(l Files) {
			for p, b := range l {
				if strings.HasPrefix(p, "resources-") {
					l[p] = []byte(strings.Replace(string(b), "image: nginx:1.25", "image: nginx:1.25-patched", 1))
				}
			}
		}, 4, ""},
		{"local-deletes-and-adds", 15, 3, bumpImages, func(l Files) {
			delete(l, "resources-02.yaml")
			l["local.yaml"] = []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: local\nstringData:\n  k: v\n")
			l["README.md"] = []byte("# ours\n")
		}, 0, ""},
		{"comments-in-odd-places", 6, 2, func(o Files) Files {
			u := bumpImages(o)
			u["extra.yaml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n  # inner foot\n# trailing\n\n# another\n---\n# head of second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y # line\ndata:\n    k:   v\n")
			u["odd.yaml"] = []byte("  0:\n #0")
			return u
		}, func(l Files) {
			l["local-odd.yaml"] = []byte("  0:\n #0")
			l["local-trailer.yaml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\ndata:\n  a: b\n  # inner foot\n# trailing\n\n# another\n")
			l["resources-00.yaml"] = append(l["resources-00.yaml"], "# local trailer\n"...)
		}, 0, ""},
		{"force-delete-replace", 15, 3, bumpImages, editReplicas(2), 0, "force-delete-replace"},
		{"fast-forward", 15, 3, bumpImages, func(Files) {}, 0, "fast-forward"},
	}
}

// genUpdatePackage is a package of n resources (Deployments with two
// containers, Services, ConfigMaps in rotation) in files files named
// resources-NN.yaml, with a README: the shape of render's benchmark
// package, as an update sees it.
func genUpdatePackage(n, files int) Files {
	docs := make([][]string, files)
	for i := 0; i < n; i++ {
		var d string
		switch i % 3 {
		case 0:
			d = fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%[1]d\n  labels:\n    app: app-%[1]d\n"+
				"spec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: app-%[1]d\n  template:\n    metadata:\n      labels:\n        app: app-%[1]d\n"+
				"    spec:\n      containers:\n        - name: main\n          image: nginx:1.25 # the web server\n          ports:\n            - containerPort: 80\n"+
				"          env:\n            - name: MODE\n              value: prod\n        - name: sidecar\n          image: busybox:1.36\n          args: [\"sleep\", \"infinity\"]\n", i)
		case 1:
			d = fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%[1]d\nspec:\n  selector:\n    app: app-%[1]d\n  ports:\n    - port: 80\n      targetPort: 8080\n", i)
		default:
			d = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%[1]d\ndata:\n  MODE: prod\n  LOG_LEVEL: info\n", i)
		}
		docs[i%files] = append(docs[i%files], d)
	}
	out := Files{
		kptfile.FileName: []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ninfo:\n  description: generated\n"),
		"README.md":      []byte("# app\n"),
	}
	for f, ds := range docs {
		out[fmt.Sprintf("resources-%02d.yaml", f)] = []byte(strings.Join(ds, "---\n"))
	}
	return out
}

// bumpImages is the upstream's new revision: every container image bumped.
func bumpImages(o Files) Files {
	u := Files{}
	for p, b := range o {
		s := strings.ReplaceAll(string(b), "image: nginx:1.25", "image: nginx:1.27")
		u[p] = []byte(strings.ReplaceAll(s, "image: busybox:1.36", "image: busybox:1.37"))
	}
	return u
}

// editReplicas is the downstream's edit: every Deployment of the first n
// resource files scaled to 5.
func editReplicas(n int) func(Files) {
	return func(l Files) {
		for i := 0; i < n; i++ {
			p := fmt.Sprintf("resources-%02d.yaml", i)
			l[p] = []byte(strings.ReplaceAll(string(l[p]), "  replicas: 2\n", "  replicas: 5\n"))
		}
	}
}
