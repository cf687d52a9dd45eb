package rollout

import "testing"

func TestMatchContext(t *testing.T) {
	defaults := []string{"kustomization/*", "helmrelease/*", "continuous-delivery/*", "config-sync/*", "deployment/*"}
	for ctx, want := range map[string]bool{
		"kustomization/upf/1a2b3c4d":    true, // Flux's notification controller
		"Kustomization/flux-system/upf": true, // older Flux: kind/namespace/name
		"continuous-delivery/edge-upf":  true, // Argo CD Notifications
		"deployment/production":         true,
		"ci/build":                      false,
		"porchbot/render":               false,
		"kustomization":                 false,
		"":                              false,
	} {
		if got := MatchContext(defaults, ctx); got != want {
			t.Errorf("%q: %v, want %v", ctx, got, want)
		}
	}
	for _, c := range []struct {
		p, s string
		want bool
	}{{"*", "", true}, {"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false}, {"*-prod", "eu-prod", true}, {"exact", "exact", true}, {"exact", "exactly", false}, {"a**", "a", true}} {
		if got := glob(c.p, c.s); got != c.want {
			t.Errorf("glob(%q, %q) = %v", c.p, c.s, got)
		}
	}
}
