package render

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Progress hears of a render as it goes: the CLI prints kpt fn render's
// progress lines from it. Every field is optional.
type Progress struct {
	// Package is called as a package's pipeline is about to run (after its
	// subpackages'), with its path relative to the rendered root ("." for
	// the root).
	Package func(rel string)
	// Start is called as a function starts to run, with what is known of
	// its step then (Package, Name, Image, Exec, Guardrail, Kind; no
	// Status). A function that fails before it can start is announced just
	// before its Step; a skipped one never is.
	Start func(Step)
	// Step is called once a function has run, failed or been skipped.
	Step func(Step)
}

// Output, when set in Options, receives the rendered resources instead of
// the render writing them back to the package (kpt fn render -o): they carry
// kpt's path and index annotations, in the order kpt's pipeline leaves them.
type Output func(nodes []*yaml.RNode) error

func (r *renderer) addStep(s Step) {
	r.res.Steps = append(r.res.Steps, s)
	if r.opts.Progress.Step != nil {
		r.opts.Progress.Step(s)
	}
}

func (r *renderer) enterPackage(pkg *pkgNode) {
	if r.opts.Progress.Package != nil {
		r.opts.Progress.Package(pkg.rel)
	}
}

// progressTap passes progress on, counting what it passed; a render started
// again (errReplay) sets skip to that count, so that what was told once is
// not told again (the functions it runs again are built-ins, which do what
// they did the first time).
type progressTap struct {
	inner      Progress
	seen, skip int
}

func (t *progressTap) pass() bool {
	t.seen++
	return t.seen > t.skip
}

func (t *progressTap) progress() Progress {
	var p Progress
	if t.inner.Package != nil {
		p.Package = func(rel string) {
			if t.pass() {
				t.inner.Package(rel)
			}
		}
	}
	if t.inner.Start != nil {
		p.Start = func(s Step) {
			if t.pass() {
				t.inner.Start(s)
			}
		}
	}
	if t.inner.Step != nil {
		p.Step = func(s Step) {
			if t.pass() {
				t.inner.Step(s)
			}
		}
	}
	return p
}
