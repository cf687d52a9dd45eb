package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/suggest"
)

// parseArgs splits tokens into positional arguments and flags and checks
// them against the verb. A refusal names the word (Arg, from 1) it is
// about.
func parseArgs(c *Command, v Verb, toks []string) *ParseError {
	argWord := []int{} // the word number of each positional argument
	for i := 0; i < len(toks); i++ {
		word := i + 1
		name, value, hasValue, isFlag := flagToken(toks[i])
		if !isFlag {
			c.Args = append(c.Args, toks[i])
			argWord = append(argWord, word)
			continue
		}
		switch {
		case !slices.Contains(v.Flags, name) && !slices.Contains(v.Switches, name):
			return unknownFlag(v, word, name)
		case c.HasFlag(name):
			return usageError(v, word, fmt.Sprintf("--%s is given twice", name))
		case slices.Contains(v.Switches, name):
			if hasValue {
				return usageError(v, word, fmt.Sprintf("--%s takes no value", name))
			}
			c.setFlag(name, "")
			continue
		}
		if !hasValue {
			if i+1 >= len(toks) {
				return usageError(v, word, fmt.Sprintf("--%s needs a value", name))
			}
			i++
			value = toks[i]
		}
		if msg := checkFlag(name, value); msg != "" {
			return usageError(v, word, msg)
		}
		c.setFlag(name, value)
	}
	switch {
	case len(c.Args) < v.MinArgs:
		return usageError(v, len(toks)+1, "an argument is missing")
	case len(c.Args) > v.MaxArgs:
		return usageError(v, argWord[v.MaxArgs], fmt.Sprintf("too many arguments (%d; quote values that contain spaces)", len(c.Args)))
	}
	for i, a := range c.Args {
		if i < len(v.Args) {
			if msg := checkArg(v.Args[i], a); msg != "" {
				return usageError(v, argWord[i], msg)
			}
		}
	}
	return nil
}

func (c *Command) setFlag(name, value string) {
	if c.Flags == nil {
		c.Flags = map[string]string{}
	}
	c.Flags[name] = value
}

// flagToken reads "--name", "--name=value"; "—name" (an editor's em dash
// for --) counts as "--name". Any other token starting with "-" is a flag
// too, so that "-w x" gets an error rather than becoming an argument.
func flagToken(tok string) (name, value string, hasValue, isFlag bool) {
	for _, dash := range []string{"—", "–"} {
		if rest, ok := strings.CutPrefix(tok, dash); ok {
			tok = "--" + rest
		}
	}
	if len(tok) < 2 || tok[0] != '-' {
		return "", "", false, false
	}
	name = strings.TrimLeft(tok, "-")
	name, value, hasValue = strings.Cut(name, "=")
	return strings.ToLower(name), value, hasValue, true
}

func checkFlag(name, value string) string {
	switch name {
	case FlagWorkspace:
		if err := packages.ValidateWorkspace(value); err != nil {
			return err.Error()
		}
	case FlagFrom, FlagTo:
		if _, ok := packages.ParseRevision(value); !ok {
			return fmt.Sprintf("--%s takes a revision such as v3, not %q", name, value)
		}
	case FlagWave:
		if value == "" || len(value) > 40 {
			return "--wave takes a wave's name"
		}
	case FlagStrategy:
		if !slices.Contains(kptfile.UpdateStrategies, value) {
			msg := fmt.Sprintf("--strategy is one of %s, not %q", strings.Join(kptfile.UpdateStrategies, ", "), value)
			if s := suggest.Nearest(value, kptfile.UpdateStrategies, MaxSuggestDistance); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", s[0])
			}
			return msg
		}
	}
	return ""
}

func checkArg(kind ArgKind, a string) string {
	switch kind {
	case ArgPackage:
		if err := packages.ValidateName(a); err != nil {
			return err.Error()
		}
	case ArgRevision:
		if _, ok := packages.ParseRevision(a); !ok {
			if _, digits := packages.ParseRevision("v" + a); digits {
				return fmt.Sprintf("write the revision v%s", a)
			}
			return fmt.Sprintf("%q is not a revision such as v3", a)
		}
	case ArgDraft:
		if _, _, err := ParseDraftArg(a); err != nil {
			return err.Error()
		}
	case ArgRolloutAction:
		if !slices.Contains(RolloutActions, strings.ToLower(a)) {
			msg := fmt.Sprintf("%q is not one of %s", a, strings.Join(RolloutActions, ", "))
			if s := suggest.Nearest(strings.ToLower(a), RolloutActions, MaxSuggestDistance); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", s[0])
			}
			return msg
		}
	case ArgVerb:
		if _, ok := LookupVerb(a); !ok {
			msg := fmt.Sprintf("there is no verb %q", a)
			if s := suggest.Nearest(a, VerbNames(), MaxSuggestDistance); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", s[0])
			}
			return msg
		}
	}
	return ""
}

// ParseDraftArg reads "<package>/<workspace>" or
// "drafts/<package>/<workspace>".
func ParseDraftArg(a string) (pkg, workspace string, err error) {
	branch := a
	if !strings.HasPrefix(a, "drafts/") {
		branch = "drafts/" + a
	}
	pkg, workspace, err = packages.CheckDraftBranchName(branch)
	if err != nil {
		return "", "", fmt.Errorf("%q is not <package>/<workspace>: %v", a, strings.TrimPrefix(err.Error(), fmt.Sprintf("branch %q: ", branch)))
	}
	return pkg, workspace, nil
}

func unknownFlag(v Verb, word int, name string) *ParseError {
	msg := fmt.Sprintf("%s has no flag --%s", mdquote.Code(Prefix+" "+v.Name), name)
	if s := suggest.Nearest(name, append(slices.Clone(v.Flags), v.Switches...), MaxSuggestDistance); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean --%s?)", s[0])
	}
	return usageError(v, word, msg)
}

// usageError is a refusal of word (from 1; 0 when the caller sets the
// position) with the verb's usage.
func usageError(v Verb, word int, msg string) *ParseError {
	return &ParseError{Arg: word, Message: msg + "; usage: " + mdquote.Code(v.Usage())}
}

// unquoteText strips one pair of quotes around free text.
func unquoteText(s string) string {
	if len(s) >= 2 {
		for _, q := range [][2]string{{`"`, `"`}, {`'`, `'`}, {"“", "”"}} {
			if strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) && len(s) >= len(q[0])+len(q[1]) {
				inner := s[len(q[0]) : len(s)-len(q[1])]
				if !strings.Contains(inner, q[0]) && !strings.Contains(inner, q[1]) {
					return strings.TrimSpace(inner)
				}
			}
		}
	}
	return s
}
