// Package settings is the server's own configuration: flags, environment
// variables and their defaults. It holds secrets, limits and the GitHub
// connection; repository configuration (.github/porchbot.yaml) may narrow
// these but never widen them.
package settings

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/render"
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

	ExecAllowlist []string
	// FunctionImages are the function images repositories may run,
	// pulled from their registries (fnimage.ParseAllowlist's entries);
	// FunctionImageCache is where their programs are kept ("": under
	// DataDir).
	FunctionImages     []string
	FunctionImageCache string
	ResyncInterval     time.Duration
	// Onboarding is what porchbot does in a repository without
	// .github/porchbot.yaml: required (open the "Configure porchbot" pull
	// request and act on nothing else there until it is merged), optional
	// (open it, and act on the defaults meanwhile) or off (the defaults,
	// silently).
	Onboarding string
	// ChartRepositories are the Helm chart repositories render-helm-chart
	// may fetch charts from (builtins.ParseChartRepos); none by default.
	ChartRepositories []string
	// SchemaDir is the schema validators' directory of Kubernetes JSON
	// schemas (render.Options.SchemaDir).
	SchemaDir string
	// Bounds on repository configs (they may narrow these, never widen).
	MinApprovals         int
	MaxPRConcurrentLimit int
	ForbidSelfApproval   bool
	ForbidAutomerge      bool

	ForgeListen string
	ForgeSeed   string

	// The web catalog (docs/catalog.md): Catalog is auto, true or false.
	Catalog        string
	CatalogURL     string
	CatalogRefresh time.Duration
	ClientID       string
	ClientSecret   []byte

	// AppIDFrom and PrivateKeyFrom name how the App id and the private key
	// were given (a flag such as --app-id, or an environment variable), so
	// that messages about them name what the user wrote.
	AppIDFrom, PrivateKeyFrom string
	// ForgeSeedFrom names how ForgeSeed was given.
	ForgeSeedFrom string
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

// EmbeddedListen is where porchbot listens in the embedded mode when
// --listen is not given: loopback, as the embedded forge does.
const EmbeddedListen = "127.0.0.1:8080"

// Option documents one setting: its flag, environment variable, default
// and meaning. The README's table is this table.
type Option struct {
	Flag, Env, Default, Help string
}

// Options lists every setting (the help table is data).
// The onboarding modes (Settings.Onboarding).
const (
	OnboardingRequired = "required"
	OnboardingOptional = "optional"
	OnboardingOff      = "off"
)

var Options = []Option{
	{"listen", "PORCHBOT_LISTEN", ":8080", "address the webhook, health and metrics server listens on (in the embedded mode, unless given: " + EmbeddedListen + ", loopback only, as the forge)"},
	{"app-id", "PORCHBOT_APP_ID", "", "GitHub App id; with no App id and no key, the embedded local forge is used"},
	{"", "PORCHBOT_PRIVATE_KEY", "", "the App's private key (PEM), inline"},
	{"private-key-path", "PORCHBOT_PRIVATE_KEY_PATH", "", "file holding the App's private key (PEM)"},
	{"", "PORCHBOT_WEBHOOK_SECRET", "", "webhook secret (required with an App; in embedded mode the forge signs with it, or with a fresh one when unset; never passed as a flag)"},
	{"webhook-secret-path", "PORCHBOT_WEBHOOK_SECRET_PATH", "", "file holding the webhook secret"},
	{"github-url", "PORCHBOT_GITHUB_URL", "https://api.github.com", "GitHub base URL: github.com, a GitHub Enterprise Server URL, or the forge"},
	{"data-dir", "PORCHBOT_DATA_DIR", ".data", "git caches (and the embedded forge's repositories)"},
	{"log-level", "PORCHBOT_LOG_LEVEL", "info", "trace, debug, info, warn or error"},
	{"log-format", "PORCHBOT_LOG_FORMAT", "auto", "auto (JSON unless standard error, where the log goes, is a terminal), json or text"},
	{"queue-size", "PORCHBOT_QUEUE_SIZE", "1024", "events waiting to be handled before deliveries are refused with 503"},
	{"workers", "PORCHBOT_WORKERS", "0", "event workers (0: twice the CPUs, at least 4)"},
	{"max-body-bytes", "PORCHBOT_MAX_BODY_BYTES", "26214400", "largest webhook body accepted (25 MiB, as GitHub's cap)"},
	{"dedupe-size", "PORCHBOT_DEDUPE_SIZE", "10000", "deliveries remembered to process each X-GitHub-Delivery at most once"},
	{"mutation-spacing", "PORCHBOT_MUTATION_SPACING", "800ms", "least time between two mutating GitHub API calls (0 with the embedded forge)"},
	{"shutdown-timeout", "PORCHBOT_SHUTDOWN_TIMEOUT", "30s", "how long SIGTERM waits for the queue to drain"},
	{"exec-allowlist", "PORCHBOT_EXEC_ALLOWLIST", "", "exec functions repositories may run, comma-separated: name, or name=/path pinning the program"},
	{"function-images", "PORCHBOT_FUNCTION_IMAGES", "", "function images repositories may run, pulled from their registries, comma-separated: REPOSITORY, REPOSITORY:TAG-GLOB or REPOSITORY@sha256:DIGEST, the registry host first (docs/functions.md)"},
	{"function-image-cache", "PORCHBOT_FUNCTION_IMAGE_CACHE", "", "directory the programs of pulled function images are kept in, by digest (default: DATA-DIR/function-images)"},
	{"chart-repositories", "PORCHBOT_CHART_REPOSITORIES", "", "Helm chart repositories render-helm-chart may fetch the charts a package does not carry from, comma-separated http(s) URLs; none by default (docs/functions.md)"},
	{"schema-dir", "PORCHBOT_SCHEMA_DIR", "", "directory of Kubernetes JSON schemas (kubeconform's layout) the kubeconform and kubeval built-ins read (docs/functions.md)"},
	{"min-approvals", "PORCHBOT_MIN_APPROVALS", "0", "least approvals.required a repository may ask for"},
	{"max-pr-concurrent-limit", "PORCHBOT_MAX_PR_CONCURRENT_LIMIT", "50", "largest updates.prConcurrentLimit a repository may set"},
	{"forbid-self-approval", "PORCHBOT_FORBID_SELF_APPROVAL", "false", "refuse repository configs with approvals.allowSelfApproval: true"},
	{"forbid-automerge", "PORCHBOT_FORBID_AUTOMERGE", "false", "refuse repository configs with updates.automerge: true"},
	{"resync-interval", "PORCHBOT_RESYNC_INTERVAL", "10m", "how often every installed repository is reconciled (0: never)"},
	{"onboarding", "PORCHBOT_ONBOARDING", "required", "a repository without .github/porchbot.yaml gets a \"Configure porchbot\" pull request: required (nothing else happens there until it is merged), optional (the defaults apply meanwhile) or off (no pull request, the defaults) (docs/onboarding.md)"},
	{"forge-listen", "PORCHBOT_FORGE_LISTEN", "127.0.0.1:3000", "embedded forge address (embedded mode only)"},
	{"forge-seed", "PORCHBOT_FORGE_SEED", "", "seed file for the embedded forge (default: the example organisation)"},
	{"catalog", "PORCHBOT_CATALOG", "auto", "the web catalog at /: auto (on in embedded mode, off with a GitHub App), true or false (docs/catalog.md)"},
	{"catalog-url", "PORCHBOT_CATALOG_URL", "", "the catalog's URL as browsers reach it; its /login/callback must be a callback URL of the App (default in embedded mode: the listen address)"},
	{"catalog-refresh", "PORCHBOT_CATALOG_REFRESH", "1m", "how old a repository's view in the catalog gets before it is read again, in the background"},
	{"client-id", "PORCHBOT_CLIENT_ID", "", "the GitHub App's client id, for the catalog's sign-in"},
	{"", "PORCHBOT_CLIENT_SECRET", "", "the GitHub App's client secret, inline (never passed as a flag)"},
	{"client-secret-path", "PORCHBOT_CLIENT_SECRET_PATH", "", "file holding the GitHub App's client secret"},
	{"render-max-files", "PORCHBOT_RENDER_MAX_FILES", strconv.Itoa(render.DefaultMaxFiles), "files a package tree may hold to be rendered"},
	{"render-max-bytes", "PORCHBOT_RENDER_MAX_BYTES", strconv.Itoa(render.DefaultMaxBytes), "bytes of KRM files a package tree may hold to be rendered (16 MiB)"},
	{"render-max-yaml-nodes", "PORCHBOT_RENDER_MAX_YAML_NODES", strconv.Itoa(render.DefaultMaxYAMLNodes), "YAML nodes a package's KRM files (and a function's output) may parse into, counted before parsing"},
	{"render-max-aliases", "PORCHBOT_RENDER_MAX_ALIASES", strconv.Itoa(render.DefaultMaxAliases), "YAML alias references one resource may hold, nested ones counted each time"},
	{"render-max-alias-bytes", "PORCHBOT_RENDER_MAX_ALIAS_BYTES", strconv.Itoa(render.DefaultMaxAliasBytes), "bytes a resource with YAML aliases may expand to (1 MiB)"},
	{"render-concurrency", "PORCHBOT_RENDER_CONCURRENCY", "1", "renders that run at once (each may take the memory docs/limits.md gives)"},
	{"fn-memory", "PORCHBOT_FN_MEMORY", strconv.Itoa(render.DefaultFnMemory), "writable memory of a function that runs user code (starlark, exec), in bytes (192 MiB)"},
	{"fn-cpu-time", "PORCHBOT_FN_CPU_TIME", render.DefaultFnCPU.String(), "CPU time of a function that runs user code"},
	{"fn-wall-time", "PORCHBOT_FN_WALL_TIME", render.DefaultFnWall.String(), "wall-clock time of a function that runs user code"},
	{"fn-max-output", "PORCHBOT_FN_MAX_OUTPUT", strconv.Itoa(render.DefaultFnOutput), "bytes a function that runs user code may write as its output (16 MiB)"},
}

// Parse reads args (after the subcommand) and the environment. Every
// problem is reported, each naming the flag or environment variable the
// value came from.
func Parse(args []string, getenv func(string) string) (*Settings, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(discard{})
	r := newReader(fs, getenv, func(Option) bool { return true })
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w (see `porchbot serve -h`)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (see `porchbot serve -h`)", fs.Arg(0))
	}
	s := &Settings{
		Listen: r.get("PORCHBOT_LISTEN"), GitHubURL: r.get("PORCHBOT_GITHUB_URL"), DataDir: r.get("PORCHBOT_DATA_DIR"),
		LogLevel: r.get("PORCHBOT_LOG_LEVEL"), LogFormat: r.get("PORCHBOT_LOG_FORMAT"),
		ForgeListen: r.get("PORCHBOT_FORGE_LISTEN"), ForgeSeed: r.get("PORCHBOT_FORGE_SEED"),
		SchemaDir: r.get("PORCHBOT_SCHEMA_DIR"),
	}
	if v := r.get("PORCHBOT_APP_ID"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			r.errorf("PORCHBOT_APP_ID", "%q is not a positive integer", v)
			id = -1 // given, though wrong: not the embedded mode
		}
		s.AppID = id
	}
	s.AppIDFrom, s.ForgeSeedFrom = r.name("PORCHBOT_APP_ID"), r.name("PORCHBOT_FORGE_SEED")
	s.PrivateKeyPEM, s.PrivateKeyFrom = r.secret("PORCHBOT_PRIVATE_KEY", "PORCHBOT_PRIVATE_KEY_PATH", "private key")
	s.WebhookSecret, _ = r.secret("PORCHBOT_WEBHOOK_SECRET", "PORCHBOT_WEBHOOK_SECRET_PATH", "webhook secret")
	s.QueueSize = r.int("PORCHBOT_QUEUE_SIZE", 1)
	r.catalog(s)
	s.Workers = r.int("PORCHBOT_WORKERS", 0)
	s.DedupeSize = r.int("PORCHBOT_DEDUPE_SIZE", 1)
	s.MaxBodyBytes = int64(r.int("PORCHBOT_MAX_BODY_BYTES", 1024))
	s.MutationSpacing = r.duration("PORCHBOT_MUTATION_SPACING")
	s.ShutdownTimeout = r.duration("PORCHBOT_SHUTDOWN_TIMEOUT")
	s.ResyncInterval = r.duration("PORCHBOT_RESYNC_INTERVAL")
	s.Onboarding = r.get("PORCHBOT_ONBOARDING")
	switch s.Onboarding {
	case OnboardingRequired, OnboardingOptional, OnboardingOff:
	default:
		r.errorf("PORCHBOT_ONBOARDING", "%q is not required, optional or off", s.Onboarding)
	}
	r.limits(s)
	r.functionImages(s)
	r.chartRepositories(s)
	s.RenderMaxFiles = r.int("PORCHBOT_RENDER_MAX_FILES", 1)
	s.RenderMaxBytes = int64(r.int("PORCHBOT_RENDER_MAX_BYTES", 1))
	s.RenderMaxYAMLNodes = int64(r.int("PORCHBOT_RENDER_MAX_YAML_NODES", 1))
	s.RenderMaxAliases = int64(r.int("PORCHBOT_RENDER_MAX_ALIASES", 1))
	s.RenderMaxAliasBytes = int64(r.int("PORCHBOT_RENDER_MAX_ALIAS_BYTES", 1))
	s.RenderConcurrency = r.int("PORCHBOT_RENDER_CONCURRENCY", 1)
	s.FnMemory = int64(r.int("PORCHBOT_FN_MEMORY", 32<<20))
	s.FnCPUTime = r.duration("PORCHBOT_FN_CPU_TIME")
	s.FnWallTime = r.duration("PORCHBOT_FN_WALL_TIME")
	s.FnMaxOutput = int64(r.int("PORCHBOT_FN_MAX_OUTPUT", 1))
	switch s.LogFormat {
	case "auto", "json", "text":
	default:
		r.errorf("PORCHBOT_LOG_FORMAT", "%q is not auto, json or text", s.LogFormat)
	}
	// A key that was given but could not be read is already reported:
	// it counts as given here.
	if keyGiven := s.PrivateKeyFrom != ""; keyGiven || s.AppID != 0 {
		if s.AppID == 0 {
			r.errs = append(r.errs, fmt.Errorf("%s is given but no App id is (--app-id or PORCHBOT_APP_ID)", s.PrivateKeyFrom))
		}
		if !keyGiven {
			r.errs = append(r.errs, fmt.Errorf("%s is given but no private key is (PORCHBOT_PRIVATE_KEY or --private-key-path)", s.AppIDFrom))
		}
		if len(s.WebhookSecret) == 0 {
			r.errs = append(r.errs, errors.New("a GitHub App needs its webhook secret: PORCHBOT_WEBHOOK_SECRET or --webhook-secret-path"))
		}
	}
	r.catalogNeeds(s)
	if s.Embedded() && !r.given("PORCHBOT_LISTEN") {
		s.Listen = EmbeddedListen // the embedded forge's App and users are on this machine
	}
	if err := errors.Join(r.errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// CatalogOn reports whether the web catalog is served: PORCHBOT_CATALOG
// true, or auto in embedded mode.
func (s *Settings) CatalogOn() bool {
	return s.Catalog == "true" || s.Catalog == "auto" && s.Embedded()
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

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
