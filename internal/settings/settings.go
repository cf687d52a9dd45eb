// Package settings is the server's own configuration: flags, environment
// variables and their defaults. It holds secrets, limits and the GitHub
// connection; repository configuration (.github/porchbot.yaml) may narrow
// these but never widen them.
package settings

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Settings of `porchbot serve`.
type Settings struct {
	Listen        string
	AppID         int64
	PrivateKeyPEM []byte
	WebhookSecret []byte
	GitHubURL     string
	DataDir       string
	LogLevel      string
	LogFormat     string // auto | json | text

	QueueSize       int
	Workers         int
	MaxBodyBytes    int64
	DedupeSize      int
	MutationSpacing time.Duration
	ShutdownTimeout time.Duration

	ExecAllowlist  []string
	ResyncInterval time.Duration
	// Bounds on repository configs (they may narrow these, never widen).
	MinApprovals         int
	MaxPRConcurrentLimit int
	ForbidSelfApproval   bool
	ForbidAutomerge      bool

	ForgeListen string
	ForgeSeed   string

	// Render bounds (docs/limits.md).
	RenderMaxFiles      int
	RenderMaxBytes      int64
	RenderMaxYAMLNodes  int64
	RenderMaxAliases    int64
	RenderMaxAliasBytes int64
	RenderConcurrency   int
	FnMemory            int64
	FnCPUTime           time.Duration
	FnWallTime          time.Duration
	FnMaxOutput         int64
}

// Embedded reports whether no GitHub App credentials were given: the
// server then runs against the embedded local forge.
func (s *Settings) Embedded() bool { return s.AppID == 0 && len(s.PrivateKeyPEM) == 0 }

// Option documents one setting: its flag, environment variable, default
// and meaning. The README's table is this table.
type Option struct {
	Flag, Env, Default, Help string
}

// Options lists every setting (the help table is data).
var Options = []Option{
	{"listen", "PORCHBOT_LISTEN", ":8080", "address the webhook, health and metrics server listens on"},
	{"app-id", "PORCHBOT_APP_ID", "", "GitHub App id; with no App id and no key, the embedded local forge is used"},
	{"", "PORCHBOT_PRIVATE_KEY", "", "the App's private key (PEM), inline"},
	{"private-key-path", "PORCHBOT_PRIVATE_KEY_PATH", "", "file holding the App's private key (PEM)"},
	{"", "PORCHBOT_WEBHOOK_SECRET", "", "webhook secret (required with an App; never passed as a flag)"},
	{"webhook-secret-path", "PORCHBOT_WEBHOOK_SECRET_PATH", "", "file holding the webhook secret"},
	{"github-url", "PORCHBOT_GITHUB_URL", "https://api.github.com", "GitHub base URL: github.com, a GitHub Enterprise Server URL, or the forge"},
	{"data-dir", "PORCHBOT_DATA_DIR", ".data", "git caches (and the embedded forge's repositories)"},
	{"log-level", "PORCHBOT_LOG_LEVEL", "info", "trace, debug, info, warn or error"},
	{"log-format", "PORCHBOT_LOG_FORMAT", "auto", "auto (JSON unless stdout is a terminal), json or text"},
	{"queue-size", "PORCHBOT_QUEUE_SIZE", "1024", "events waiting to be handled before deliveries are refused with 503"},
	{"workers", "PORCHBOT_WORKERS", "0", "event workers (0: twice the CPUs, at least 4)"},
	{"max-body-bytes", "PORCHBOT_MAX_BODY_BYTES", "26214400", "largest webhook body accepted (25 MiB, as GitHub's cap)"},
	{"dedupe-size", "PORCHBOT_DEDUPE_SIZE", "10000", "deliveries remembered to process each X-GitHub-Delivery at most once"},
	{"mutation-spacing", "PORCHBOT_MUTATION_SPACING", "1s", "least time between two mutating GitHub API calls (0 with the embedded forge)"},
	{"shutdown-timeout", "PORCHBOT_SHUTDOWN_TIMEOUT", "30s", "how long SIGTERM waits for the queue to drain"},
	{"exec-allowlist", "PORCHBOT_EXEC_ALLOWLIST", "", "exec functions repositories may run, comma-separated: name, or name=/path pinning the program"},
	{"min-approvals", "PORCHBOT_MIN_APPROVALS", "0", "least approvals.required a repository may ask for"},
	{"max-pr-concurrent-limit", "PORCHBOT_MAX_PR_CONCURRENT_LIMIT", "50", "largest updates.prConcurrentLimit a repository may set"},
	{"forbid-self-approval", "PORCHBOT_FORBID_SELF_APPROVAL", "false", "refuse repository configs with approvals.allowSelfApproval: true"},
	{"forbid-automerge", "PORCHBOT_FORBID_AUTOMERGE", "false", "refuse repository configs with updates.automerge: true"},
	{"resync-interval", "PORCHBOT_RESYNC_INTERVAL", "10m", "how often every installed repository is reconciled (0: never)"},
	{"forge-listen", "PORCHBOT_FORGE_LISTEN", "127.0.0.1:3000", "embedded forge address (embedded mode only)"},
	{"forge-seed", "PORCHBOT_FORGE_SEED", "", "seed file for the embedded forge (default: the example organisation)"},
	{"render-max-files", "PORCHBOT_RENDER_MAX_FILES", "10000", "files a package tree may hold to be rendered"},
	{"render-max-bytes", "PORCHBOT_RENDER_MAX_BYTES", "16777216", "bytes of KRM files a package tree may hold to be rendered (16 MiB)"},
	{"render-max-yaml-nodes", "PORCHBOT_RENDER_MAX_YAML_NODES", "300000", "YAML nodes a package's KRM files (and a function's output) may parse into, counted before parsing"},
	{"render-max-aliases", "PORCHBOT_RENDER_MAX_ALIASES", "10000", "YAML alias references one resource may hold, nested ones counted each time"},
	{"render-max-alias-bytes", "PORCHBOT_RENDER_MAX_ALIAS_BYTES", "1048576", "bytes a resource with YAML aliases may expand to (1 MiB)"},
	{"render-concurrency", "PORCHBOT_RENDER_CONCURRENCY", "1", "renders that run at once (each may take the memory docs/limits.md gives)"},
	{"fn-memory", "PORCHBOT_FN_MEMORY", "201326592", "writable memory of a function that runs user code (starlark, exec), in bytes (192 MiB)"},
	{"fn-cpu-time", "PORCHBOT_FN_CPU_TIME", "20s", "CPU time of a function that runs user code"},
	{"fn-wall-time", "PORCHBOT_FN_WALL_TIME", "60s", "wall-clock time of a function that runs user code"},
	{"fn-max-output", "PORCHBOT_FN_MAX_OUTPUT", "16777216", "bytes a function that runs user code may write as its output (16 MiB)"},
}

// Parse reads args (after the subcommand) and the environment.
func Parse(args []string, getenv func(string) string) (*Settings, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(discard{})
	vals := map[string]*string{}
	for _, o := range Options {
		if o.Flag == "" {
			continue
		}
		def := o.Default
		if v := getenv(o.Env); v != "" {
			def = v
		}
		vals[o.Env] = fs.String(o.Flag, def, o.Help)
	}
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("serve: %w (see `porchbot serve -h`)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	get := func(env string) string { return strings.TrimSpace(*vals[env]) }
	s := &Settings{
		Listen: get("PORCHBOT_LISTEN"), GitHubURL: get("PORCHBOT_GITHUB_URL"), DataDir: get("PORCHBOT_DATA_DIR"),
		LogLevel: get("PORCHBOT_LOG_LEVEL"), LogFormat: get("PORCHBOT_LOG_FORMAT"),
		ForgeListen: get("PORCHBOT_FORGE_LISTEN"), ForgeSeed: get("PORCHBOT_FORGE_SEED"),
	}
	var errs []error
	if v := get("PORCHBOT_APP_ID"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			errs = append(errs, fmt.Errorf("PORCHBOT_APP_ID / --app-id: %q is not a positive integer", v))
			id = -1 // given, though wrong: not the embedded mode
		}
		s.AppID = id
	}
	s.PrivateKeyPEM = secret(getenv("PORCHBOT_PRIVATE_KEY"), get("PORCHBOT_PRIVATE_KEY_PATH"), "private key", &errs)
	s.WebhookSecret = secret(getenv("PORCHBOT_WEBHOOK_SECRET"), get("PORCHBOT_WEBHOOK_SECRET_PATH"), "webhook secret", &errs)
	s.QueueSize = atoi(get("PORCHBOT_QUEUE_SIZE"), "queue-size", 1, &errs)
	s.Workers = atoi(get("PORCHBOT_WORKERS"), "workers", 0, &errs)
	s.DedupeSize = atoi(get("PORCHBOT_DEDUPE_SIZE"), "dedupe-size", 1, &errs)
	s.MaxBodyBytes = int64(atoi(get("PORCHBOT_MAX_BODY_BYTES"), "max-body-bytes", 1024, &errs))
	s.MutationSpacing = duration(get("PORCHBOT_MUTATION_SPACING"), "mutation-spacing", &errs)
	s.ShutdownTimeout = duration(get("PORCHBOT_SHUTDOWN_TIMEOUT"), "shutdown-timeout", &errs)
	s.ResyncInterval = duration(get("PORCHBOT_RESYNC_INTERVAL"), "resync-interval", &errs)
	s.MinApprovals = atoi(get("PORCHBOT_MIN_APPROVALS"), "min-approvals", 0, &errs)
	s.MaxPRConcurrentLimit = atoi(get("PORCHBOT_MAX_PR_CONCURRENT_LIMIT"), "max-pr-concurrent-limit", 1, &errs)
	s.ForbidSelfApproval = boolean(get("PORCHBOT_FORBID_SELF_APPROVAL"), "forbid-self-approval", &errs)
	s.ForbidAutomerge = boolean(get("PORCHBOT_FORBID_AUTOMERGE"), "forbid-automerge", &errs)
	s.RenderMaxFiles = atoi(get("PORCHBOT_RENDER_MAX_FILES"), "render-max-files", 1, &errs)
	s.RenderMaxBytes = int64(atoi(get("PORCHBOT_RENDER_MAX_BYTES"), "render-max-bytes", 1, &errs))
	s.RenderMaxYAMLNodes = int64(atoi(get("PORCHBOT_RENDER_MAX_YAML_NODES"), "render-max-yaml-nodes", 1, &errs))
	s.RenderMaxAliases = int64(atoi(get("PORCHBOT_RENDER_MAX_ALIASES"), "render-max-aliases", 1, &errs))
	s.RenderMaxAliasBytes = int64(atoi(get("PORCHBOT_RENDER_MAX_ALIAS_BYTES"), "render-max-alias-bytes", 1, &errs))
	s.RenderConcurrency = atoi(get("PORCHBOT_RENDER_CONCURRENCY"), "render-concurrency", 1, &errs)
	s.FnMemory = int64(atoi(get("PORCHBOT_FN_MEMORY"), "fn-memory", 32<<20, &errs))
	s.FnCPUTime = duration(get("PORCHBOT_FN_CPU_TIME"), "fn-cpu-time", &errs)
	s.FnWallTime = duration(get("PORCHBOT_FN_WALL_TIME"), "fn-wall-time", &errs)
	s.FnMaxOutput = int64(atoi(get("PORCHBOT_FN_MAX_OUTPUT"), "fn-max-output", 1, &errs))
	for _, e := range strings.Split(get("PORCHBOT_EXEC_ALLOWLIST"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			s.ExecAllowlist = append(s.ExecAllowlist, e)
		}
	}
	switch s.LogFormat {
	case "auto", "json", "text":
	default:
		errs = append(errs, fmt.Errorf("--log-format: %q is not auto, json or text", s.LogFormat))
	}
	if !s.Embedded() {
		if s.AppID == 0 {
			errs = append(errs, errors.New("a private key was given without PORCHBOT_APP_ID"))
		}
		if len(s.PrivateKeyPEM) == 0 {
			errs = append(errs, errors.New("PORCHBOT_APP_ID was given without PORCHBOT_PRIVATE_KEY or PORCHBOT_PRIVATE_KEY_PATH"))
		}
		if len(s.WebhookSecret) == 0 {
			errs = append(errs, errors.New("PORCHBOT_WEBHOOK_SECRET (or PORCHBOT_WEBHOOK_SECRET_PATH) is required with a GitHub App"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("serve settings: %w", err)
	}
	return s, nil
}

// Usage is the flag and environment table, for `porchbot serve -h`.
func Usage() string {
	var b strings.Builder
	b.WriteString("Usage: porchbot serve [flags]\n\nEvery flag also reads an environment variable; flags win.\n\n")
	for _, o := range Options {
		flagName := "(environment only)"
		if o.Flag != "" {
			flagName = "--" + o.Flag
		}
		fmt.Fprintf(&b, "  %-26s %-34s %s", flagName, o.Env, o.Help)
		if o.Default != "" {
			fmt.Fprintf(&b, " (default %s)", o.Default)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func secret(inline, path, what string, errs *[]error) []byte {
	if inline != "" && path != "" {
		*errs = append(*errs, fmt.Errorf("%s given both inline and as a file; give one", what))
		return nil
	}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("read %s: %w", what, err))
			return nil
		}
		return []byte(strings.TrimRight(string(data), "\r\n"))
	}
	if inline == "" {
		return nil
	}
	return []byte(inline)
}

func atoi(v, name string, least int, errs *[]error) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		*errs = append(*errs, fmt.Errorf("--%s: %q must be an integer of at least %d", name, v, least))
	}
	return n
}

func boolean(v, name string, errs *[]error) bool {
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("--%s: %q is not true or false", name, v))
	}
	return b
}

func duration(v, name string, errs *[]error) time.Duration {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		*errs = append(*errs, fmt.Errorf("--%s: %q is not a duration such as 1s or 500ms", name, v))
	}
	return d
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
