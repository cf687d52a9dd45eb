package config

import (
	"strings"
	"testing"
)

// TestParseFlows: flows.allowWiderReaders is off by default, read when
// set, and a wrong value or field is reported at its line.
func TestParseFlows(t *testing.T) {
	def, err := Parse(file, []byte(minimal), ServerLimits{})
	if err != nil || def.Flows.AllowWiderReaders {
		t.Fatalf("default: %+v %v", def, err)
	}
	c, err := Parse(file, []byte(minimal+"flows:\n  allowWiderReaders: true\n"), ServerLimits{})
	if err != nil || !c.Flows.AllowWiderReaders {
		t.Fatalf("set: %+v %v", c, err)
	}
	got := problems(t, minimal+"flows:\n  allowWiderReaders: sure\n  towards: public\n", ServerLimits{})
	if len(got) != 2 || !strings.Contains(got[0]+got[1], "flows.allowWiderReaders") || !strings.Contains(got[0]+got[1], `"towards"`) {
		t.Fatalf("problems: %q", got)
	}
}
