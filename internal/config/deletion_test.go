package config

import (
	"strings"
	"testing"
)

// TestDeletionWithDownstreams: lifecycle.deletionWithDownstreams defaults
// to require-ack, reads require-ack or allow, and anything else is an
// error at its line and column naming the values.
func TestDeletionWithDownstreams(t *testing.T) {
	parse := func(body string) (*Config, error) {
		return Parse(file, []byte(minimal+body), ServerLimits{})
	}
	if c, err := parse(""); err != nil || c.Lifecycle.DeletionWithDownstreams != DeletionRequireAck {
		t.Fatalf("default: %+v %v", c, err)
	}
	for _, v := range []string{DeletionRequireAck, DeletionAllow} {
		if c, err := parse("lifecycle:\n  deletionWithDownstreams: " + v + "\n"); err != nil || c.Lifecycle.DeletionWithDownstreams != v {
			t.Fatalf("%s: %+v %v", v, c, err)
		}
	}
	for body, want := range map[string]string{
		"lifecycle:\n  deletionWithDownstreams: never\n":   ".github/porchbot.yaml:4:28: lifecycle.deletionWithDownstreams",
		"lifecycle:\n  deletionWithDownstreams: [allow]\n": ".github/porchbot.yaml:4:28: lifecycle.deletionWithDownstreams",
		"lifecycle:\n  deletionsWithDownstreams: allow\n":  `.github/porchbot.yaml:4:3: unknown field "deletionsWithDownstreams"`,
	} {
		_, err := parse(body)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
		if err != nil && strings.Contains(body, "never") && !strings.Contains(err.Error(), "require-ack") {
			t.Errorf("%q: the error does not name the values: %v", body, err)
		}
	}
}
