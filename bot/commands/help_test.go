package commands

import (
	"strings"
	"testing"
)

func TestHelpTableListsEveryVerbOfTheSpec(t *testing.T) {
	want := []string{"help", "list", "dependents", "init", "clone", "edit", "propose", "approve", "reject", "render", "upgrade", "rollback", "delete", "variants", "rollout", "publish"}
	if got := VerbNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("verbs %v, want SPEC §4's %v", got, want)
	}
	md := HelpMarkdown()
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if lines[0] != "| command | effect | who may run it |" || lines[1] != "|---|---|---|" || len(lines) != 2+len(want) {
		t.Fatalf("table:\n%s", md)
	}
	for i, v := range want {
		if !strings.HasPrefix(lines[2+i], "| `/porch "+v) {
			t.Errorf("row %d: %s", i, lines[2+i])
		}
		// Every row has exactly four unescaped pipes: three cells.
		if n := strings.Count(strings.ReplaceAll(lines[2+i], `\|`, ""), "|"); n != 4 {
			t.Errorf("row %q has %d cell separators", lines[2+i], n)
		}
		if _, ok := verbHandlers[v]; !ok {
			t.Errorf("verb %s has no handler", v)
		}
	}
	for _, s := range []string{
		"| `/porch upgrade <package> [--to vN] [--strategy resource-merge\\|fast-forward\\|force-delete-replace\\|copy-merge]` |",
		"| `/porch approve [--orphan-downstreams]` | counts as an approval from the commenter; `--orphan-downstreams` also acknowledges that a deletion leaves downstream packages without their upstream (in a pull request) | anyone; counts if the approval policy allows |",
		"| `/porch dependents <package>` |",
		"| `/porch init <package> [--workspace W] [--description D]` | new empty package draft (what `kpt pkg init` writes) | write access |",
		"| `/porch help [<verb>]` | this command table | anyone |",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("help lacks %q:\n%s", s, md)
		}
	}
	one := HelpMarkdown("Clone")
	if strings.Count(one, "\n") != 3 || !strings.Contains(one, "/porch clone <owner/repo/package@vN") {
		t.Errorf("help clone:\n%s", one)
	}
}

func TestHelpVerbTableIsConsistent(t *testing.T) {
	for _, v := range Verbs {
		if v.MinArgs > v.MaxArgs && !v.Text {
			t.Errorf("%s: MinArgs > MaxArgs", v.Name)
		}
		if len(v.Args) > v.MaxArgs {
			t.Errorf("%s: more argument kinds than arguments", v.Name)
		}
		for _, f := range append(append([]string(nil), v.Flags...), v.Switches...) {
			if !strings.Contains(v.Syntax, "--"+f) {
				t.Errorf("%s: flag --%s missing from the syntax %q", v.Name, f, v.Syntax)
			}
		}
	}
}
