package rendercheck

import "testing"

// The server's schema directory reaches every render, forks' included.
func TestRenderOptionsCarrySchemaDir(t *testing.T) {
	for _, fork := range []bool{false, true} {
		ropts, _ := renderOptionsFor(nil, fork, RenderOptions{SchemaDir: "/srv/schemas"})
		if ropts.SchemaDir != "/srv/schemas" {
			t.Errorf("fork %v: SchemaDir %q", fork, ropts.SchemaDir)
		}
	}
}
