package render

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/porchbot/porchbot/internal/render/builtins"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// Resolver turns a pipeline function into something that runs in process.
// It is called only for functions the exec policy lets through.
type Resolver func(fn Function) (framework.ResourceListProcessor, error)

// Options control a render. The zero value renders with the built-in
// functions only, refuses nothing but exec (skipped, see AllowExec) and
// applies the default limits.
type Options struct {
	// Resolve maps a function to its implementation. Nil means DefaultResolver:
	// built-ins at the catalog release the image names, and for exec
	// functions that passed the policy, the named program run as a subprocess.
	Resolve Resolver

	// AllowExec lets `exec:` functions run at all. When false (pull requests
	// from forks: "rendered with built-ins only, never exec") every exec
	// function is skipped: the step is reported as skipped with a warning
	// result saying why, the remaining functions still run so validators
	// report, and the render is incomplete: nothing is written and
	// Result.Complete() is false.
	AllowExec bool

	// ExecAllowlist is the server-side list of exec commands that may run when
	// AllowExec is set. An entry with a slash matches the exec command's
	// program path exactly (after cleaning); an entry without one matches a
	// program named that way (looked up on PATH); "*" matches everything (the
	// CLI's --allow-exec without a list, as kpt). Exec functions not named
	// fail the render with an error naming them.
	ExecAllowlist []string

	// Images runs the function images porchbot does not build in that
	// the server's allowlist names, pulled from their registries (nil:
	// none). Their programs run user code: as exec functions, only with
	// AllowExec and in the Sandbox.
	Images FunctionImages
	// ImagesWithoutExec lets Images run where AllowExec is unset: on the
	// command line, whose user names the images to pull (as kpt runs
	// images without --allow-exec). The server never sets it: forks.
	ImagesWithoutExec bool

	// SchemaDir is the server's directory of Kubernetes JSON schemas for
	// the schema validators (kubeconform, kubeval), in kubeconform's
	// layout (docs/functions.md). "" gives them none: they then read only
	// the schema directories inside the package a functionConfig names and
	// the package's CustomResourceDefinitions. Nothing is ever fetched.
	SchemaDir string

	// ChartRepos are the Helm chart repositories the server lets
	// render-helm-chart fetch the charts a package does not carry from
	// (nil: none; charts then come from the package only).
	ChartRepos *builtins.ChartRepos

	// ExtraMutators and ExtraValidators are repository-wide guardrails
	// (config render.mutators / render.validators). They run as if appended to
	// the root package's pipeline: after its mutators, respectively after its
	// validators, seeing everything the root pipeline sees. A configPath is
	// relative to the root package.
	ExtraMutators, ExtraValidators []Function

	// Limits on the input. Zero means the default; negative means no limit.
	MaxFiles     int   // files in the package tree (every kind)
	MaxBytes     int64 // bytes of KRM files (Kptfile, *.yaml, *.yml, *.json)
	MaxYAMLDepth int   // nesting of mappings and sequences in one resource
	// Bounds are the server's limits on what user input may cost.
	Bounds

	// NoAttribution turns off kpt's attribution annotation
	// (cnrm.cloud.google.com/blueprint on Config Connector resources), as the
	// KPT_DISABLE_ATTRIBUTION environment variable does for kpt.
	NoAttribution bool

	// OwnProcess says the render is all the process does (the command
	// line): it may set the garbage collector's pace for its own peak
	// memory, which a server running renders side by side must not.
	OwnProcess bool

	// DisplayDir is the package's path as users know it (its directory in
	// the repository, say): errors name files under it instead of the
	// path in the file system rendered.
	DisplayDir string

	// Kpt is the kpt release whose render to reproduce ("": DefaultKpt).
	// v1.0.0-beta.67 records the render in the root Kptfile's status
	// (render_status.go).
	Kpt KptRelease

	// Progress hears of each package and function as the render goes.
	Progress Progress
	// Output, when set, takes the rendered resources instead of the package
	// (nothing is written to it; Result.Changed and Deleted stay empty).
	Output Output

	// serialized forces every function through a serialized ResourceList
	// (tests compare both paths).
	serialized bool
}

// Bounds are the limits on what a package and its functions may cost a
// render beyond Options' file limits. Zero means the default; negative
// means no limit.
type Bounds struct {
	// MaxYAMLNodes bounds the nodes the package's KRM files parse into,
	// counted on their bytes before parsing (yamlsize.EstimateNodes).
	MaxYAMLNodes int64
	// MaxAliases bounds the alias references of one resource (nested ones
	// counted each time) and MaxAliasBytes what a resource that has aliases
	// may expand to: no YAML alias bomb is ever turned into values.
	MaxAliases    int64
	MaxAliasBytes int64

	// Sandbox runs functions that run user code (starlark, exec) in a child
	// process under its limits. Nil runs them in process (the CLI): then
	// starlark is bounded by its step count only.
	Sandbox *Sandbox
	// Gate, when set, bounds how many renders run at once (they wait for a
	// slot, or for their context).
	Gate *Gate
}

// Gate bounds how many renders run at once in a process.
type Gate struct{ slots chan struct{} }

// NewGate lets n renders run at once (at least one).
func NewGate(n int) *Gate { return &Gate{slots: make(chan struct{}, max(n, 1))} }

// enter waits for a slot; the returned function gives it back.
func (g *Gate) enter(ctx context.Context) (func(), error) {
	if g == nil {
		return func() {}, nil
	}
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Default limits.
const (
	DefaultMaxFiles     = 10000
	DefaultMaxBytes     = 16 << 20
	DefaultMaxYAMLDepth = 100
	// a file of tiny scalars costs kyaml several hundred bytes of memory
	// per node: see docs/limits.md
	DefaultMaxYAMLNodes  = 300_000
	DefaultMaxAliases    = 10_000
	DefaultMaxAliasBytes = 1 << 20
)

func (o Options) limits() (files int, bytes int64, depth int) {
	files, bytes, depth = o.MaxFiles, o.MaxBytes, o.MaxYAMLDepth
	if files == 0 {
		files = DefaultMaxFiles
	}
	if bytes == 0 {
		bytes = DefaultMaxBytes
	}
	if depth == 0 {
		depth = DefaultMaxYAMLDepth
	}
	return files, bytes, depth
}

// orDefault is v, or def when v is zero; negative means no limit (-1).
func orDefault(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// ExecAllowed reports whether the server allowlist names the program of an
// exec line.
func (o Options) ExecAllowed(exec string) bool {
	prog := execProgram(exec)
	if prog == "" {
		return false
	}
	for _, e := range o.ExecAllowlist {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case e == "*":
			return true
		case strings.Contains(e, "/"):
			if strings.Contains(prog, "/") && filepath.Clean(e) == filepath.Clean(prog) {
				return true
			}
		default:
			if e == prog {
				return true
			}
		}
	}
	return false
}

func execProgram(exec string) string {
	args, err := splitCommand(exec)
	if err != nil || len(args) == 0 {
		return ""
	}
	return args[0]
}

// UnsupportedFunctionError is a function porchbot cannot or may not run.
type UnsupportedFunctionError struct {
	Function  Function
	Reason    string
	Supported []string
}

func (e *UnsupportedFunctionError) Error() string {
	var sb strings.Builder
	if e.Function.Image != "" {
		fmt.Fprintf(&sb, "function %q: %s", e.Function.Image, e.Reason)
	} else {
		fmt.Fprintf(&sb, "exec function %q: %s", e.Function.Exec, e.Reason)
	}
	if len(e.Supported) > 0 {
		fmt.Fprintf(&sb, "; supported built-in functions (kpt catalog images at the releases `porchbot fn --help` lists): %s",
			strings.Join(e.Supported, ", "))
	}
	return sb.String()
}
