package builtins

import (
	"fmt"
	"strings"
)

// export-terraform makes each file of Terraform from a Go template; the
// writers of exportterraform_*.go write the same text. A template that
// dereferences a missing parent fails the function with text/template's
// error, which names the template, the place in it and the expression: a
// tfSite is such a place.

// nilDereference is the runtime's panic a template call recovers from.
const nilDereference = "runtime error: invalid memory address or nil pointer dereference"

// maxTerraformBytes bounds the HCL export-terraform writes (it grows with
// the package, which the render bounds already).
const maxTerraformBytes = 32 << 20

// tfSite is a place in one of the release's templates that can fail:
// file, line:column, and the expression there. The places are the same in
// every release that has the template.
type tfSite struct{ file, at, expr string }

func (s tfSite) error(call, cause string) error {
	return fmt.Errorf("template: %s:%s: executing %q at <%s>: error calling %s: %s", s.file, s.at, s.file, s.expr, call, cause)
}

// tfHCL is one file being written; the first error ends it.
type tfHCL struct {
	m   *tfModel
	b   strings.Builder
	err error
}

func (h *tfHCL) write(parts ...string) {
	for _, p := range parts {
		h.b.WriteString(p)
	}
}

// writeList writes head, each item between before and after, and tail;
// nothing for no items.
func (h *tfHCL) writeList(items []string, head, before, after, tail string) {
	if len(items) == 0 {
		return
	}
	h.write(head)
	for _, it := range items {
		h.write(before, it, after)
	}
	h.write(tail)
}

func (h *tfHCL) fail(site tfSite, call, cause string) {
	if h.err == nil {
		h.err = site.error(call, cause)
	}
}

// failed reports whether the file has failed (a loop stops then).
func (h *tfHCL) failed() bool { return h.err != nil }

func (h *tfHCL) name(r *tfResource) string { return h.m.tfName(r) }

// parentName is the Terraform name of r's parent (a project's module);
// without parent the template fails at site.
func (h *tfHCL) parentName(r *tfResource, site tfSite) string {
	if r.parent == nil {
		h.fail(site, "GetResourceName", nilDereference)
		return ""
	}
	return h.m.tfName(r.parent)
}

// orgID is the id of the organization r belongs to, unprefixed; without
// one the template fails at site.
func (h *tfHCL) orgID(r *tfResource, site tfSite) string {
	if h.failed() {
		return ""
	}
	org, ok := h.m.organization(r)
	switch {
	case !ok:
		h.fail(site, "GetOrganization", nilDereference)
	case org == nil:
		h.fail(site, "GetTerraformId", nilDereference)
	default:
		return h.m.tfID(org, false)
	}
	return ""
}

// noValue is what a template prints for a reference the resource lacks.
const noValue = "<no value>"

// listOrSay decodes r's list at path into out (see tfFields.list); a list
// missing, or not a list, the release says it cannot find on stderr.
func (h *tfHCL) listOrSay(r *tfResource, out any, goType, what string, path ...string) {
	found, err := r.fields.list(out, goType, path...)
	if !found || err != nil {
		fmt.Fprintf(h.m.stderr, "unable to find %s in %s (found = %t): %s\n", what, r.name, found, sdkErrorText(err))
	}
}

// refName is the Terraform name of r's reference of that kind.
func (h *tfHCL) refName(r *tfResource, kind string) string {
	if t := r.refs[kind]; t != nil {
		return h.m.tfName(t)
	}
	return noValue
}

// tfWriter writes the file of that name.
type tfWriter struct {
	name  string
	write func(*tfHCL)
}

// terraformFiles are the files of HCL the release makes of the package
// (the ConfigMap's data): each resource file with something in it, then,
// if there is one, the README, versions.tf and variables.tf.
func (m *tfModel) terraformFiles() (map[string]string, error) {
	writers := []tfWriter{{"folders.tf", writeTFFolders}, {"iam.tf", writeTFIAM}, {"projects.tf", writeTFProjects}}
	if m.release != tfV010 {
		writers = append(writers, tfWriter{"log-export.tf", writeTFLogExport}, tfWriter{"network.tf", writeTFNetwork})
	}
	data := map[string]string{}
	size := 0
	add := func(name, text string) {
		if text = strings.TrimSpace(text); text != "" {
			data[name] = text + "\n"
			size += len(text)
		}
	}
	for _, w := range writers {
		h := &tfHCL{m: m}
		w.write(h)
		if m.refused != nil {
			return nil, m.refused
		}
		if h.err != nil {
			return nil, h.err
		}
		add(w.name, h.b.String())
		if size > maxTerraformBytes {
			return nil, tfRefusal{fmt.Errorf("export-terraform: the Terraform made of the package exceeds %d bytes, "+
				"more than porchbot writes", maxTerraformBytes)}
		}
	}
	if len(data) > 0 {
		add("README.md", tfReadme)
		add("versions.tf", tfVersions)
		add("variables.tf", m.variablesTF())
	}
	return data, nil
}
