package settings

import (
	"errors"
	"flag"
	"strings"

	"github.com/porchbot/porchbot/internal/config"
)

// limitEnvs are the options bounding repository configs. `porchbot
// validate-config` takes them too (LimitFlags), with serve's defaults, so a
// file that validates behaves the same when served.
var limitEnvs = []string{"PORCHBOT_EXEC_ALLOWLIST", "PORCHBOT_MIN_APPROVALS", "PORCHBOT_MAX_PR_CONCURRENT_LIMIT",
	"PORCHBOT_FORBID_SELF_APPROVAL", "PORCHBOT_FORBID_AUTOMERGE"}

func isLimit(o Option) bool {
	for _, e := range limitEnvs {
		if o.Env == e {
			return true
		}
	}
	return false
}

// limits reads the bounds on repository configs into s.
func (r *reader) limits(s *Settings) {
	s.MinApprovals = r.int("PORCHBOT_MIN_APPROVALS", 0)
	s.MaxPRConcurrentLimit = r.int("PORCHBOT_MAX_PR_CONCURRENT_LIMIT", 1)
	s.ForbidSelfApproval = r.bool("PORCHBOT_FORBID_SELF_APPROVAL")
	s.ForbidAutomerge = r.bool("PORCHBOT_FORBID_AUTOMERGE")
	for _, e := range strings.Split(r.get("PORCHBOT_EXEC_ALLOWLIST"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			s.ExecAllowlist = append(s.ExecAllowlist, e)
		}
	}
}

// ServerLimits are the server's bounds on repository configs.
func (s *Settings) ServerLimits() config.ServerLimits {
	return config.ServerLimits{ExecAllowlist: s.ExecAllowlist, MaxPRConcurrentLimit: s.MaxPRConcurrentLimit,
		MinApprovals: s.MinApprovals, AllowSelfApproval: !s.ForbidSelfApproval, AllowAutomerge: !s.ForbidAutomerge}
}

// LimitFlags registers on fs the flags bounding repository configs, with
// serve's defaults (and environment variables), and returns the function
// that reads them once fs is parsed.
func LimitFlags(fs *flag.FlagSet, getenv func(string) string) func() (config.ServerLimits, error) {
	r := newReader(fs, getenv, isLimit)
	return func() (config.ServerLimits, error) {
		var s Settings
		r.limits(&s)
		return s.ServerLimits(), errors.Join(r.errs...)
	}
}
