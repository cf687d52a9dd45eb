package demo

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// The step table, and the small readers and text helpers the narration uses.

// StepTable lays out the usage of steps, with a total, and porchbot's calls
// per endpoint under each step.
func StepTable(steps []Step) string {
	var b strings.Builder
	const row = "  %-30s %5v %6v %9v   %5v %6v %9v   %6v %5v\n"
	fmt.Fprintf(&b, "  %-30s %s   %s   %s\n", "", rule("REST calls", 22), rule("git HTTP requests", 22), rule("porchbot's git", 12))
	fmt.Fprintf(&b, row, "step", "all", "users", "porchbot", "all", "users", "porchbot", "fetch", "push")
	line := func(name string, u Usage) {
		bot := fmt.Sprint(u.BotREST)
		if !u.Consistent() {
			bot += "!"
		}
		fmt.Fprintf(&b, row, name, u.REST, u.UserREST, bot, u.GitRequests, u.UserGit, u.BotGit, u.Fetches, u.Pushes)
	}
	var total Usage
	for i, st := range steps {
		u := st.Usage
		total = total.Add(u)
		name := st.Short
		if name == "" {
			name = mdquote.TruncateRunes(st.Title, 27, "…")
		}
		line(fmt.Sprintf("%d. %s", i+1, name), u)
		if list := u.CallList(); list != "" {
			for _, l := range wrap("porchbot: "+list, 96) {
				fmt.Fprintf(&b, "       %s\n", l)
			}
		}
		if u.SessionCalls > 0 {
			fmt.Fprintf(&b, "       (%d of these open porchbot's session with an installation: once per process and installation)\n", u.SessionCalls)
		}
	}
	line("total", total)
	return b.String()
}

// rule centres title in a rule of width runes.
func rule(title string, width int) string {
	n := width - utf8.RuneCountInString(title) - 2
	if n < 0 {
		return title
	}
	return strings.Repeat("─", n/2) + " " + title + " " + strings.Repeat("─", n-n/2)
}

// upstreamOf is the upstream and upstreamLock sections of a Kptfile, as YAML.
func upstreamOf(kptfile string) (up, lock string, err error) {
	node, err := yaml.Parse(kptfile)
	if err != nil {
		return "", "", fmt.Errorf("the downstream Kptfile: %w", err)
	}
	for _, f := range []struct {
		key string
		out *string
	}{{"upstream", &up}, {"upstreamLock", &lock}} {
		v, err := node.Pipe(yaml.Lookup(f.key))
		if err != nil || v == nil {
			return "", "", fmt.Errorf("the downstream Kptfile has no %s:\n%s", f.key, kptfile)
		}
		wrapped := yaml.NewMapRNode(nil)
		if err := wrapped.PipeE(yaml.SetField(f.key, v)); err != nil {
			return "", "", err
		}
		if *f.out, err = wrapped.String(); err != nil {
			return "", "", err
		}
	}
	return up, lock, nil
}

func conclusion(run *github.CheckRun) string {
	if run.GetStatus() != "completed" {
		return run.GetStatus()
	}
	return run.GetConclusion()
}

func taskType(t packages.Trailer) string {
	if t.Task == nil {
		return ""
	}
	return t.Task.Type
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		return strings.Join(lines[:n], "\n") + "\n…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// wrap breaks s at ", " into lines of at most width characters.
func wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, part := range strings.SplitAfter(s, ", ") {
		if line != "" && len(line)+len(part) > width {
			out = append(out, strings.TrimRight(line, " "))
			line = "          "
		}
		line += part
	}
	return append(out, strings.TrimRight(line, " "))
}
