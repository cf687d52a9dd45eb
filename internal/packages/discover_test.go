package packages

import (
	"reflect"
	"testing"
)

func TestDiscover(t *testing.T) {
	files := []string{
		"README.md",
		"Kptfile", // at the repository root: not a package
		".github/porchbot.yaml",
		"network/upf/Kptfile",
		"network/upf/deployment.yaml",
		"network/upf/config/Kptfile", // subpackage of network/upf
		"network/upf/config/deep/x/Kptfile",
		"network/smf/Kptfile",
		"network/README.md",
		"basens/Kptfile",
		"bad name/Kptfile",
		"./sneaky/Kptfile",
		"../outside/Kptfile",
		"/abs/Kptfile",
		"notakptfile/Kptfile.bak",
		"a/Kptfile/b", // a directory called Kptfile is not a Kptfile
	}
	got := Discover(files, ".")
	want := []Package{
		{Name: "bad name", Dir: "bad name"},
		{Name: "basens", Dir: "basens"},
		{Name: "network/smf", Dir: "network/smf"},
		{Name: "network/upf", Dir: "network/upf", Subpackages: []string{"network/upf/config"}},
		{Name: "network/upf/config", Dir: "network/upf/config", Parent: "network/upf", Subpackages: []string{"network/upf/config/deep/x"}},
		{Name: "network/upf/config/deep/x", Dir: "network/upf/config/deep/x", Parent: "network/upf/config"},
	}
	if len(got) != len(want) {
		t.Fatalf("Discover = %+v", got)
	}
	for i := range want {
		g := got[i]
		if g.Name == "bad name" {
			if g.Err == nil {
				t.Errorf("package %q: want a name error", g.Name)
			}
			g.Err = nil
		} else if g.Err != nil {
			t.Errorf("package %q: unexpected error %v", g.Name, g.Err)
		}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("package %d = %+v, want %+v", i, g, want[i])
		}
	}
}

func TestDiscoverUnderRoot(t *testing.T) {
	files := []string{
		"pkgs/Kptfile", // root itself: not a package
		"pkgs/upf/Kptfile",
		"pkgs/upf/sub/Kptfile",
		"pkgsx/other/Kptfile",
		"other/Kptfile",
	}
	for _, root := range []string{"pkgs", "./pkgs", "pkgs/", "/pkgs"} {
		got := Discover(files, root)
		want := []Package{
			{Name: "upf", Dir: "pkgs/upf", Subpackages: []string{"upf/sub"}},
			{Name: "upf/sub", Dir: "pkgs/upf/sub", Parent: "upf"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Discover(root %q) = %+v, want %+v", root, got, want)
		}
	}
	if got := Discover(nil, "."); len(got) != 0 {
		t.Errorf("Discover(nil) = %+v", got)
	}
}

func TestNormalizeRoot(t *testing.T) {
	for in, want := range map[string]string{"": "", ".": "", "./": "", "/": "", "pkgs": "pkgs", "./pkgs/": "pkgs", "a//b/": "a/b"} {
		if got := NormalizeRoot(in); got != want {
			t.Errorf("NormalizeRoot(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackageOf(t *testing.T) {
	pkgs := Discover([]string{"net/upf/Kptfile", "net/upf/sub/Kptfile", "net/upfx/Kptfile"}, "")
	for file, want := range map[string]string{
		"net/upf/deployment.yaml": "net/upf",
		"net/upf/sub/cm.yaml":     "net/upf", // a subpackage's file belongs to its package
		"net/upfx/Kptfile":        "net/upfx",
		"net/README.md":           "",
		"net/upf":                 "",
	} {
		p, ok := PackageOf(pkgs, file)
		if p.Name != want || ok != (want != "") {
			t.Errorf("PackageOf(%q) = %q %v, want %q", file, p.Name, ok, want)
		}
	}
}
