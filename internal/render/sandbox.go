package render

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/porchbot/porchbot/internal/render/builtins"
)

// SandboxCommand is the hidden first argument with which porchbot runs as
// the sandbox of one function (RunSandboxChild).
const SandboxCommand = "__fn-sandbox"

// Sandbox runs the functions that run user code (starlark and exec) in a
// child process under limits, so that no program in a package can take the
// server down: the child is porchbot itself (Program), which lowers its own
// resource limits and then runs the built-in, or execs the program.
type Sandbox struct {
	// Program is porchbot's executable, run as `Program SandboxCommand …`;
	// whatever runs it must call RunSandboxChild first thing in main.
	Program string
	Limits  FunctionLimits
}

// FunctionLimits bound one run of a function. Zero fields take the
// defaults, which fit a 512 MiB pod (docs/limits.md).
type FunctionLimits struct {
	Memory int64         // bytes of writable memory (RLIMIT_DATA)
	CPU    time.Duration // CPU time (RLIMIT_CPU, whole seconds)
	Wall   time.Duration // wall-clock time
	Output int64         // bytes the function may write to stdout
}

// Default function limits.
const (
	DefaultFnMemory = 192 << 20
	DefaultFnCPU    = 20 * time.Second
	DefaultFnWall   = 60 * time.Second
	DefaultFnOutput = 16 << 20
)

func (l FunctionLimits) withDefaults() FunctionLimits {
	if l.Memory <= 0 {
		l.Memory = DefaultFnMemory
	}
	if l.CPU <= 0 {
		l.CPU = DefaultFnCPU
	}
	if l.Wall <= 0 {
		l.Wall = DefaultFnWall
	}
	if l.Output <= 0 {
		l.Output = DefaultFnOutput
	}
	return l
}

// LimitExceededError is a function stopped for passing one of its limits.
type LimitExceededError struct {
	Limit   string // "memory", "CPU time", "wall time", "output size"
	Value   string // the limit, e.g. "192 MiB"
	Setting string // the server setting that sets it
}

func (e *LimitExceededError) Error() string {
	return fmt.Sprintf("the function exceeded its %s limit of %s (server setting %s, see docs/limits.md)",
		e.Limit, e.Value, e.Setting)
}

// sandboxed is a function run in the sandbox: a built-in by name, or a
// program.
type sandboxed struct {
	sb      *Sandbox
	builtin string   // a built-in's image at its release (starlark:v0.4.3), or
	argv    []string // a program and its arguments, or
	helm    bool     // render-helm-chart's templating of one chart
}

// sandboxedBuiltins are the built-ins that run user code.
var sandboxedBuiltins = map[string]bool{"starlark": true}

// sandbox wraps proc in the sandbox when it runs user code.
func (sb *Sandbox) wrap(fn Function, proc any) any {
	if sb == nil {
		return proc
	}
	if ef, ok := proc.(*ExecFunction); ok { // an exec function, or a pulled image's program
		return &sandboxed{sb: sb, argv: append([]string{ef.Path}, ef.Args...)}
	}
	if fn.Image != "" {
		if r, err := builtins.Resolve(fn.Image, fn.Tag); err == nil && sandboxedBuiltins[r.Spec.Name] {
			return &sandboxed{sb: sb, builtin: r.Spec.Name + ":" + r.Version}
		}
	}
	return proc
}

func (s *sandboxed) args() []string {
	l := s.sb.Limits.withDefaults()
	a := []string{SandboxCommand, "--memory", strconv.FormatInt(l.Memory, 10),
		"--cpu", strconv.FormatInt(int64((l.CPU+time.Second-1)/time.Second), 10)}
	if s.builtin != "" {
		return append(a, "--builtin", s.builtin)
	}
	if s.helm {
		return append(a, "--helm-template")
	}
	return append(append(a, "--"), s.argv...)
}

// RunStream implements streamRunner.
func (s *sandboxed) RunStream(ctx context.Context, in io.Reader, out io.Writer) error {
	_, err := s.runStream(ctx, in, out)
	return err
}

// runStream runs the child on a serialized ResourceList and returns what
// it wrote to stderr (the whole of it, within 64 KiB).
func (s *sandboxed) runStream(ctx context.Context, in io.Reader, out io.Writer) (string, error) {
	l := s.sb.Limits.withDefaults()
	wctx, cancel := context.WithTimeout(ctx, l.Wall)
	defer cancel()
	stderr := &capWriter{max: 64 << 10}
	stdout := &limitWriter{w: out, max: l.Output, exceeded: cancel}
	cmd := exec.CommandContext(wctx, s.sb.Program, s.args()...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, stdout, stderr
	cmd.Env = sandboxEnv(l)
	// the child leads a process group of its own, killed whole when a limit
	// stops it and whenever it ends, so no process it started outlives the
	// render; its children may hold stdout open after it is killed
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	killGroup(cmd)
	if runErr == nil {
		return stderr.String(), nil
	}
	code := 1
	var ee *exec.ExitError
	if errors.As(runErr, &ee) && ee.ExitCode() > 0 {
		code = ee.ExitCode()
	}
	var lim *LimitExceededError
	switch {
	case stdout.over:
		lim = &LimitExceededError{Limit: "output size", Value: byteSize(l.Output), Setting: "fn-max-output"}
	case ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded):
		lim = &LimitExceededError{Limit: "wall time", Value: l.Wall.String(), Setting: "fn-wall-time"}
	case cmd.ProcessState != nil && cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime() >= l.CPU-l.CPU/10,
		killedForCPU(cmd.ProcessState, l.CPU):
		lim = &LimitExceededError{Limit: "CPU time", Value: l.CPU.String(), Setting: "fn-cpu-time"}
	case outOfMemory(stderr.String()), s.builtin != "" && goRuntimeCrash(stderr.String()),
		crashedNearMemoryLimit(cmd.ProcessState, stderr.String(), l.Memory):
		lim = &LimitExceededError{Limit: "memory", Value: byteSize(l.Memory), Setting: "fn-memory"}
	}
	if lim != nil {
		return stderr.String(), &ExecError{ExitCode: code, Stderr: lim.Error(), Err: lim}
	}
	if ctx.Err() != nil {
		return stderr.String(), &ExecError{ExitCode: code, Stderr: ctx.Err().Error(), Err: ctx.Err()}
	}
	if code == 1 && ee == nil {
		return stderr.String(), &ExecError{ExitCode: 1, Stderr: runErr.Error(), Err: runErr}
	}
	return stderr.String(), &ExecError{ExitCode: code, Stderr: stderr.String(), Err: runErr}
}

// outOfMemory recognises what a program says when an allocation fails
// (Go's runtime, C's malloc users, Python, the JVM, C++).
// goRuntimeCrash reports a Go program that died of a fault in its runtime.
// A built-in (porchbot's own code) dies so only when an allocation failed
// under its memory limit: the runtime can fault instead of saying so.
func goRuntimeCrash(stderr string) bool {
	for _, m := range []string{"SIGSEGV", "SIGBUS", "unexpected signal during runtime execution", "fatal error: runtime"} {
		if strings.Contains(stderr, m) {
			return true
		}
	}
	return false
}

func outOfMemory(stderr string) bool {
	s := strings.ToLower(stderr)
	for _, m := range []string{"out of memory", "cannot allocate memory", "failed to allocate", "pthread_create failed", "memoryerror", "bad_alloc", "outofmemoryerror"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// sandboxEnv is the child's environment: nothing of the server's (it holds
// secrets), a PATH, and Go's memory limit below the hard one so a Go
// program collects garbage before it fails.
func sandboxEnv(l FunctionLimits) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent",
		"GOMEMLIMIT=" + strconv.FormatInt(l.Memory*3/4, 10), "GOGC=50"}
}

// Process implements framework.ResourceListProcessor by a round trip
// through the child (the render engine calls RunStream directly).
func (s *sandboxed) Process(rl *framework.ResourceList) error {
	return processByStream(s, rl)
}

// limitWriter passes at most max bytes to w, then calls exceeded.
type limitWriter struct {
	w        io.Writer
	max, n   int64
	over     bool
	exceeded func()
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > w.max {
		w.over = true
		w.exceeded()
		return 0, errors.New("output limit exceeded")
	}
	w.n += int64(len(p))
	return w.w.Write(p)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// sandboxReady records that this program's main calls RunSandboxChild, so
// that it can be its own sandbox.
var sandboxReady atomic.Bool

// SandboxReady reports whether this program can run as a Sandbox's
// Program: its main called RunSandboxChild (a test binary that does not
// would run its tests instead).
func SandboxReady() bool { return sandboxReady.Load() }

// RunSandboxChild is the sandbox side: when args (os.Args[1:]) start with
// SandboxCommand it lowers the process's limits, runs the function on
// stdin and stdout, and returns the exit code with ok set; otherwise it
// does nothing. porchbot's main (and the tests' TestMain) call it first.
func RunSandboxChild(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	sandboxReady.Store(true)
	if len(args) == 0 || args[0] != SandboxCommand {
		return 0, false
	}
	fs := flag.NewFlagSet(SandboxCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	memory := fs.Int64("memory", DefaultFnMemory, "bytes of writable memory")
	cpu := fs.Int64("cpu", int64(DefaultFnCPU/time.Second), "seconds of CPU time")
	builtin := fs.String("builtin", "", "built-in function to run")
	helmJob := fs.Bool("helm-template", false, "template the chart render-helm-chart hands over on stdin")
	if err := fs.Parse(args[1:]); err != nil {
		return 2, true
	}
	if err := setLimits(*memory+raceOverhead, *cpu); err != nil {
		fmt.Fprintf(stderr, "sandbox: %v\n", err)
		return 2, true
	}
	if *helmJob {
		return runHelmJob(*memory, stdin, stdout, stderr), true
	}
	if *builtin == "" {
		if fs.NArg() == 0 {
			fmt.Fprintln(stderr, "sandbox: no program to run")
			return 2, true
		}
		err := replaceWith(fs.Args())
		fmt.Fprintf(stderr, "sandbox: %v\n", err)
		return 126, true
	}
	r, err := builtins.Resolve(*builtin, "")
	if err != nil || !sandboxedBuiltins[r.Spec.Name] {
		fmt.Fprintf(stderr, "sandbox: no built-in %q runs here\n", *builtin)
		return 2, true
	}
	f, ok := builtins.NewStarlark(r.Version, stderr)
	if !ok {
		fmt.Fprintf(stderr, "sandbox: no built-in %q runs here\n", *builtin)
		return 2, true
	}
	debug.SetMemoryLimit(*memory * 3 / 4)
	rw := &kio.ByteReadWriter{Reader: stdin, Writer: stdout, KeepReaderAnnotations: true}
	// the catalog function alone, as its own program runs it: kpt's
	// bookkeeping (comments, order) is the parent's
	fn := f.(builtins.Bare)
	if err := framework.Execute(framework.ResourceListProcessorFunc(fn.ProcessBare), rw); err != nil {
		var f builtins.Failure
		if errors.As(err, &f) {
			fmt.Fprint(stderr, f.Stderr) // as the catalog function prints it
		} else {
			fmt.Fprintln(stderr, err)
		}
		return 1, true
	}
	return 0, true
}
