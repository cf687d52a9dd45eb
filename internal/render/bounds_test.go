package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The attacks on the render are run in a child process (this test binary
// again, under the sandbox's memory limit) so that, were a bound missing,
// the child and not the test machine would run out of memory; the child
// reports the render's error and its peak RSS is measured.

const attackEnv = "PORCHBOT_RENDER_ATTACK"

func TestMain(m *testing.M) {
	if code, ok := RunSandboxChild(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	if name := os.Getenv(attackEnv); name != "" {
		run, ok := scenarios[name]
		if !ok {
			fmt.Fprintln(os.Stderr, "no scenario", name)
			os.Exit(2)
		}
		code := run()
		printPeak()
		os.Exit(code)
	}
	code := m.Run()
	if benchDir.dir != "" {
		_ = os.RemoveAll(benchDir.dir)
	}
	os.Exit(code)
}

// billionLaughs is a ConfigMap whose aliases expand to 9^9 strings, in
// under 1 KiB.
func billionLaughs() string {
	b, err := os.ReadFile("../../testdata/attacks/billion-laughs.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// starlarkPipeline runs source as an inline starlark function.
func starlarkPipeline(source string) string {
	return "pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/starlark:v0.4.3\n      configMap:\n        source: |\n" +
		indent(source, "          ")
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return by + strings.Join(lines, "\n"+by) + "\n"
}

const readsEverything = `for r in ctx.resource_list["items"]:
    r["metadata"]["labels"] = {"seen": str(len(str(r)))}
`

const doublesAString = `s = "x"
while True:
    s = s + s
`

// attacks are the packages a user could push to take the server down,
// each rendered under the server's default function memory (a smaller
// limit would leave the sandbox child, this test binary with Helm, OPA
// and the Kubernetes libraries linked in, too little room on a loaded
// machine for the ordinary render that follows the attack).
var attacks = map[string]func() (filesys.FileSystem, string, Options){
	"alias-bomb": func() (filesys.FileSystem, string, Options) {
		fs, root := memPkgT(map[string]string{"Kptfile": kptfile("bomb", starlarkPipeline(readsEverything)),
			"bomb.yaml": billionLaughs()})
		return fs, root, Options{Bounds: Bounds{Sandbox: testSandbox(FunctionLimits{Memory: DefaultFnMemory})}}
	},
	"string-doubling": func() (filesys.FileSystem, string, Options) {
		fs, root := memPkgT(map[string]string{"Kptfile": kptfile("doubling", starlarkPipeline(doublesAString)),
			"cm.yaml": cm("a")})
		return fs, root, Options{Bounds: Bounds{Sandbox: testSandbox(FunctionLimits{Memory: DefaultFnMemory})}}
	},
}

func testSandbox(l FunctionLimits) *Sandbox {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return &Sandbox{Program: exe, Limits: l}
}

// memPkgT is memPkg outside a test.
func memPkgT(files map[string]string) (filesys.FileSystem, string) {
	fs := filesys.MakeFsInMemory()
	for p, c := range files {
		if err := fs.WriteFile("/pkg/"+p, []byte(c)); err != nil {
			panic(err)
		}
	}
	return fs, "/pkg"
}

// scenarios run in a child process: the attacks and the peak-memory
// measurements (peak_test.go).
var scenarios = map[string]func() int{
	"alias-bomb":      func() int { return runAttack(attacks["alias-bomb"]) },
	"string-doubling": func() int { return runAttack(attacks["string-doubling"]) },
}

// runAttack renders the attack, then an ordinary package (nothing else is
// affected), and prints both outcomes.
func runAttack(mk func() (filesys.FileSystem, string, Options)) int {
	fs, root, opts := mk()
	res, err := Render(context.Background(), fs, root, opts)
	fmt.Printf("error: %v\n", err)
	for _, it := range res.Results.Items {
		fmt.Printf("result stderr: %s\n", it.Stderr)
	}
	fs, root = memPkgT(map[string]string{"Kptfile": kptfile("ok", starlarkPipeline(readsEverything)), "cm.yaml": cm("a")})
	if _, err := Render(context.Background(), fs, root, opts); err != nil {
		fmt.Printf("next render: %v\n", err)
		return 1
	}
	fmt.Println("next render: ok")
	return 0
}

// attackChild runs an attack in a child process whose writable memory is
// capped at memLimit, and returns its output and its peak RSS (its own or
// its largest child's, in bytes).
func attackChild(t testing.TB, name string, memLimit int64) (string, int64) {
	t.Helper()
	c := runChild(t, []string{attackEnv + "=" + name}, memLimit, 120)
	if c.err != nil {
		t.Fatalf("attack %s: the render process failed (%v), peak RSS %d MiB:\n%s\n%s", name, c.err, c.rss>>20,
			c.out, truncate(c.stderr, 2000))
	}
	return c.out, c.rss
}

// child is a finished child process.
type child struct {
	out, stderr string
	rss         int64 // peak RSS in bytes, its own or its largest child's
	wall, cpu   time.Duration
	err         error
}

// runChild runs this test binary as a scenario child (env selects it)
// under the sandbox's limits: memLimit bytes of writable memory, cpu
// seconds of CPU time.
func runChild(t testing.TB, env []string, memLimit int64, cpu int) child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, SandboxCommand, "--memory", fmt.Sprint(memLimit), "--cpu", fmt.Sprint(cpu), "--", exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	err = cmd.Run()
	c := child{out: out.String(), stderr: stderr.String(), wall: time.Since(start), err: err}
	c.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if i := strings.LastIndex(c.out, peakLine); i >= 0 {
		var own, kids int64
		if _, err := fmt.Sscanf(c.out[i+len(peakLine):], "%d %d", &own, &kids); err == nil {
			c.rss = own + kids
		}
	} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// killed before it could say: what the kernel kept, an upper bound
		c.rss = ru.Maxrss << 10
	}
	return c
}

const peakLine = "peak-rss: "

// printPeak prints the process's own peak RSS (VmHWM: this program's since
// it was exec'd, unlike the rusage, which keeps the parent's peak from
// the fork) and its largest child's (rusage of the children, which may
// count this process's size at the fork: an upper bound), in bytes.
func printPeak() {
	var own int64
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				if _, err := fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%d", &own); err == nil {
					own <<= 10
				}
			}
		}
	}
	var ru syscall.Rusage
	var kids int64
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err == nil {
		kids = ru.Maxrss << 10
	}
	fmt.Printf("%s%d %d\n", peakLine, own, kids)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestAttackAliasBombFailsTheRender(t *testing.T) {
	if len(billionLaughs()) > 1024 {
		t.Fatalf("the bomb is %d bytes", len(billionLaughs()))
	}
	out, rss := attackChild(t, "alias-bomb", 1<<30)
	for _, want := range []string{"error: bomb.yaml: input too large: the number of YAML alias references",
		"the limit is 10000", "next render: ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	t.Logf("peak RSS %d MiB", rss>>20)
}

func TestAttackStringDoublingStarlarkFailsTheRender(t *testing.T) {
	out, rss := attackChild(t, "string-doubling", 1<<30)
	for _, want := range []string{`function "gcr.io/kpt-fn/starlark:v0.4.3" failed`,
		"exceeded its memory limit of 192 MiB (server setting fn-memory", "next render: ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	t.Logf("peak RSS %d MiB", rss>>20)
}

func TestAliasesWithinTheLimitsRender(t *testing.T) {
	doc := cm("shared", "data:\n  a: &v hello\n  b: *v\n  c: *v\n")
	fs, root := memPkg(t, map[string]string{"Kptfile": kptfile("ok", starlarkPipeline(readsEverything)), "a.yaml": doc})
	if _, err := Render(context.Background(), fs, root, Options{}); err != nil {
		t.Fatal(err)
	}
	fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("ok", ""), "a.yaml": doc})
	_, err := Render(context.Background(), fs, root, Options{Bounds: Bounds{MaxAliases: 1}})
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "a.yaml: input too large: the number of YAML alias references") {
		t.Fatalf("err = %v", err)
	}
}

func TestYAMLNodesLimit(t *testing.T) {
	tiny := cm("tiny", "data:\n  x: ["+strings.Repeat("a,", 5000)+"a]\n")
	fs, root := memPkg(t, map[string]string{"Kptfile": kptfile("n", ""), "sub/tiny.yaml": tiny})
	_, err := Render(context.Background(), fs, root, Options{Bounds: Bounds{MaxYAMLNodes: 10_000}})
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "sub/tiny.yaml: input too large: the YAML nodes") ||
		!strings.Contains(err.Error(), "the limit is 10000") {
		t.Fatalf("err = %v", err)
	}
	fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("n", ""), "sub/tiny.yaml": tiny})
	if _, err := Render(context.Background(), fs, root, Options{Bounds: Bounds{MaxYAMLNodes: 100_000}}); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
}

// sandboxed renders a package in the sandbox with limits and returns the
// render's error (which must name the function) and its result.
func sandboxedRender(t *testing.T, files map[string]string, l FunctionLimits) (*Result, error) {
	t.Helper()
	fs, root := memPkg(t, files)
	opts := Options{Bounds: Bounds{Sandbox: testSandbox(l)}, AllowExec: true, ExecAllowlist: []string{"*"}}
	return Render(context.Background(), fs, root, opts)
}

func TestFunctionLimits(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pipeline string
		limits   FunctionLimits
		want     string
	}{
		{"cpu", starlarkPipeline("x = 0\nwhile True:\n    x += 1\n"), FunctionLimits{CPU: time.Second},
			"exceeded its CPU time limit of 1s (server setting fn-cpu-time"},
		{"wall", "pipeline:\n  mutators:\n    - exec: sleep 30\n", FunctionLimits{Wall: 300 * time.Millisecond},
			"exceeded its wall time limit of 300ms (server setting fn-wall-time"},
		{"output", "pipeline:\n  mutators:\n    - exec: head -c 3000000 /dev/zero\n", FunctionLimits{Output: 1 << 20},
			"exceeded its output size limit of 1 MiB (server setting fn-max-output"},
		{"memory", starlarkPipeline(doublesAString), FunctionLimits{Memory: 96 << 20},
			"exceeded its memory limit of 96 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sandboxedRender(t, map[string]string{"Kptfile": kptfile("lim", tc.pipeline), "cm.yaml": cm("a")}, tc.limits)
			var fe *FunctionError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			var le *LimitExceededError
			if !errors.As(err, &le) {
				t.Fatalf("no LimitExceededError in %v", err)
			}
		})
	}
}

// A function stopped by a limit takes the processes it started with it.
func TestFunctionLimitsKillWhatTheFunctionStarted(t *testing.T) {
	const marker = "sleep 31.37"
	pipeline := "pipeline:\n  mutators:\n    - exec: sh -c '" + marker + " & " + marker + "'\n"
	_, err := sandboxedRender(t, map[string]string{"Kptfile": kptfile("lim", pipeline), "cm.yaml": cm("a")},
		FunctionLimits{Wall: 300 * time.Millisecond})
	var le *LimitExceededError
	if !errors.As(err, &le) || le.Limit != "wall time" {
		t.Fatalf("err = %v, want the wall time limit", err)
	}
	out, _ := exec.Command("pgrep", "-f", marker).Output()
	if len(bytes.TrimSpace(out)) > 0 {
		_ = exec.Command("pkill", "-f", marker).Run()
		t.Fatalf("processes the function started outlived it: %s", out)
	}
}

func TestStarlarkPrintReachesStderr(t *testing.T) {
	src := "print(\"hello from starlark\")\n"
	files := map[string]string{"Kptfile": kptfile("p", starlarkPipeline(src)), "cm.yaml": cm("a")}
	for _, sandbox := range []bool{false, true} {
		t.Run(fmt.Sprint("sandbox=", sandbox), func(t *testing.T) {
			var res *Result
			var err error
			if sandbox {
				res, err = sandboxedRender(t, files, FunctionLimits{})
			} else {
				fs, root := memPkg(t, files)
				res, err = Render(context.Background(), fs, root, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Steps) != 1 || res.Steps[0].Stderr != "hello from starlark\n" {
				t.Fatalf("steps = %+v", res.Steps)
			}
		})
	}
	failing := map[string]string{"Kptfile": kptfile("p", starlarkPipeline(src+"fail(\"no\")\n")), "cm.yaml": cm("a")}
	fs, root := memPkg(t, failing)
	res, err := Render(context.Background(), fs, root, Options{})
	if err == nil || len(res.Results.Items) != 1 || !strings.HasPrefix(res.Results.Items[0].Stderr, "hello from starlark\n") {
		t.Fatalf("err = %v, results = %+v", err, res.Results.Items)
	}
}

func TestFunctionOutputNodesLimit(t *testing.T) {
	src := "ctx.resource_list[\"items\"] = [{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", " +
		"\"metadata\": {\"name\": \"c%d\" % i}, \"data\": {\"a\": \"b\"}} for i in range(2000)]\n"
	fs, root := memPkg(t, map[string]string{"Kptfile": kptfile("out", starlarkPipeline(src)), "cm.yaml": cm("a")})
	opts := Options{Bounds: Bounds{Sandbox: testSandbox(FunctionLimits{}), MaxYAMLNodes: 10_000}}
	_, err := Render(context.Background(), fs, root, opts)
	if !errors.As(err, new(*LimitExceededError)) || !strings.Contains(err.Error(), "exceeded its output YAML nodes limit of 10000") {
		t.Fatalf("err = %v", err)
	}
	fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("out", starlarkPipeline(src)), "cm.yaml": cm("a")})
	opts.MaxYAMLNodes = 100_000
	if _, err := Render(context.Background(), fs, root, opts); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
}

// A function whose in-memory run is discarded for the serialized one (a
// commented value changes kind; kyaml's comment copy then fails the render,
// as under kpt) prints once, not once per run.
func TestStarlarkPrintOnceWhenRunAgainSerialized(t *testing.T) {
	src := "print(\"once\")\nfor r in ctx.resource_list[\"items\"]:\n    if \"spec\" in r:\n        r[\"spec\"][\"a\"] = {\"b\": \"c\"}\n"
	files := map[string]string{"Kptfile": kptfile("p", starlarkPipeline(src)),
		"thing.yaml": "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  a: x # a note\n"}
	fs, root := memPkg(t, files)
	res, _ := Render(context.Background(), fs, root, Options{})
	if res.stats.serialized == 0 {
		t.Fatalf("the case no longer falls back to the serialized run: %+v", res.stats)
	}
	if len(res.Steps) != 1 || strings.Count(res.Steps[0].Stderr, "once") != 1 {
		t.Fatalf("steps = %+v", res.Steps)
	}
	for _, it := range res.Results.Items {
		if strings.Count(it.Stderr, "once") > 1 {
			t.Fatalf("results stderr %q", it.Stderr)
		}
	}
}
