package settings

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// reader reads options from flags, falling back on their environment
// variables and then on their defaults, and collects problems, each named
// after what the user gave: the flag when it was on the command line, the
// environment variable when it came from there.
type reader struct {
	fs     *flag.FlagSet
	getenv func(string) string
	vals   map[string]*string // by environment variable
	flags  map[string]string  // environment variable -> flag name ("" for environment-only)
	errs   []error
}

// newReader registers on fs a flag for each option keep selects.
func newReader(fs *flag.FlagSet, getenv func(string) string, keep func(Option) bool) *reader {
	r := &reader{fs: fs, getenv: getenv, vals: map[string]*string{}, flags: map[string]string{}}
	for _, o := range Options {
		if !keep(o) {
			continue
		}
		r.flags[o.Env] = o.Flag
		if o.Flag == "" {
			continue
		}
		def := o.Default
		if v := getenv(o.Env); v != "" {
			def = v
		}
		if o.Default == "true" || o.Default == "false" {
			v := &boolValue{s: def}
			fs.Var(v, o.Flag, o.Help) // --flag alone means true
			r.vals[o.Env] = &v.s
			continue
		}
		r.vals[o.Env] = fs.String(o.Flag, def, o.Help) // checked when read (reader.int, ...)
	}
	return r
}

// boolValue is a boolean flag's text: given alone, it is "true"; checked
// when read (reader.bool).
type boolValue struct{ s string }

func (v *boolValue) String() string     { return v.s }
func (v *boolValue) Set(s string) error { v.s = s; return nil }
func (v *boolValue) IsBoolFlag() bool   { return true }

// get is an option's value (trimmed); environment-only options read the
// environment.
func (r *reader) get(env string) string {
	if v, ok := r.vals[env]; ok {
		return strings.TrimSpace(*v)
	}
	return r.getenv(env)
}

// name is what the user gave for an option: "--flag" when it is on the
// command line, the environment variable when it is set there, else the
// flag (or the variable of an environment-only option).
func (r *reader) name(env string) string {
	f := r.flags[env]
	if f == "" {
		return env
	}
	given := false
	r.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == f })
	if !given && r.getenv(env) != "" {
		return env
	}
	return "--" + f
}

// given: the option is on the command line or in the environment.
func (r *reader) given(env string) bool {
	f := r.flags[env]
	given := r.getenv(env) != ""
	r.fs.Visit(func(fl *flag.Flag) { given = given || f != "" && fl.Name == f })
	return given
}

// errorf records a problem with an option, named as the user gave it.
func (r *reader) errorf(env, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %s", r.name(env), fmt.Sprintf(format, args...)))
}

// secret reads a secret given inline (an environment variable only) or as
// a file (a flag or its variable), and names where it came from.
func (r *reader) secret(inlineEnv, pathEnv, what string) ([]byte, string) {
	inline, path := r.getenv(inlineEnv), r.get(pathEnv)
	switch {
	case inline != "" && path != "":
		r.errs = append(r.errs, fmt.Errorf("both %s and %s give the %s; give one", inlineEnv, r.name(pathEnv), what))
		return nil, ""
	case path != "":
		from := r.name(pathEnv)
		data, err := os.ReadFile(path)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %w", from, err))
			return nil, from
		}
		return []byte(strings.TrimRight(string(data), "\r\n")), from
	case inline != "":
		return []byte(inline), inlineEnv
	}
	return nil, ""
}

func (r *reader) int(env string, least int) int {
	v := r.get(env)
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		r.errorf(env, "%q must be an integer of at least %d", v, least)
	}
	return n
}

func (r *reader) bool(env string) bool {
	v := r.get(env)
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.errorf(env, "%q is not true or false", v)
	}
	return b
}

func (r *reader) duration(env string) time.Duration {
	v := r.get(env)
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.errorf(env, "%q is not a duration such as 1s or 500ms", v)
	}
	return d
}
