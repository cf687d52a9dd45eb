package flow

import (
	"testing"

	"github.com/porchbot/porchbot/internal/hub"
)

// TestVisibilityCacheForget: what Forget drops is unknown again, and the
// cache keeps what it is told afterwards.
func TestVisibilityCacheForget(t *testing.T) {
	var c VisibilityCache
	repo := func(name string) hub.Repository {
		return hub.Repository{Name: name, Owner: "acme", Visibility: "private"}
	}
	c.Remember(repo("a"))
	c.Forget()
	if v := c.Get("acme", "a"); v != Unknown {
		t.Errorf("acme/a %s after Forget", v)
	}
	c.Remember(repo("b"))
	if v := c.Get("ACME", "b"); v != Private {
		t.Errorf("acme/b %s, want private", v)
	}
}
