package config

import (
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/porchbot/porchbot/internal/packages"
)

// Repository is a downstream repository, the data of variant templates:
// {{ .Repository.Owner }}, {{ .Repository.Name }}, {{ .Repository.FullName }}.
type Repository struct {
	Owner, Name string
}

// FullName is "owner/name".
func (r Repository) FullName() string { return r.Owner + "/" + r.Name }

// templateFields are the fields a template may use.
var templateFields = []string{"Owner", "Name", "FullName"}

// templateFuncs may follow a field in a pipeline: {{ .Repository.Name | lower }}.
var templateFuncs = template.FuncMap{"lower": strings.ToLower, "upper": strings.ToUpper}

// nameTemplate is a parsed variant name template. Templates are limited to
// text, {{ .Repository.<Field> }} and the functions lower and upper, so a
// configuration cannot make the bot loop or build huge strings.
type nameTemplate struct {
	src string
	t   *template.Template
}

func parseNameTemplate(src string) (*nameTemplate, error) {
	t, err := template.New("name").Funcs(templateFuncs).Option("missingkey=error").Parse(src)
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return nil, fmt.Errorf("invalid template: %s", msg)
	}
	if t.Tree == nil || t.Tree.Root == nil {
		return &nameTemplate{src: src, t: t}, nil
	}
	for _, n := range t.Tree.Root.Nodes {
		if err := checkTemplateNode(n); err != nil {
			return nil, err
		}
	}
	return &nameTemplate{src: src, t: t}, nil
}

var errTemplateForm = errors.New("a template may only use {{ .Repository.Name }}, {{ .Repository.Owner }} or {{ .Repository.FullName }}, optionally piped to lower or upper")

func checkTemplateNode(n parse.Node) error {
	switch n := n.(type) {
	case *parse.TextNode:
		return nil
	case *parse.ActionNode:
		p := n.Pipe
		if p == nil || len(p.Decl) > 0 || len(p.Cmds) == 0 {
			return errTemplateForm
		}
		first := p.Cmds[0]
		if len(first.Args) != 1 {
			return errTemplateForm
		}
		f, ok := first.Args[0].(*parse.FieldNode)
		if !ok || len(f.Ident) != 2 || f.Ident[0] != "Repository" || !contains(templateFields, f.Ident[1]) {
			return errTemplateForm
		}
		for _, c := range p.Cmds[1:] {
			if len(c.Args) != 1 {
				return errTemplateForm
			}
			id, ok := c.Args[0].(*parse.IdentifierNode)
			if !ok || templateFuncs[id.Ident] == nil {
				return errTemplateForm
			}
		}
		return nil
	}
	return errTemplateForm
}

func (t *nameTemplate) render(repo Repository) (string, error) {
	data := map[string]map[string]string{"Repository": {
		"Owner": repo.Owner, "Name": repo.Name, "FullName": repo.FullName(),
	}}
	var b strings.Builder
	if err := t.t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("template %q: %w", t.src, err)
	}
	return b.String(), nil
}

// templateOf returns the parsed template of src (pre-parsed when the
// Variant came from Parse).
func templateOf(parsed *nameTemplate, src string) (*nameTemplate, error) {
	if parsed != nil && parsed.src == src {
		return parsed, nil
	}
	return parseNameTemplate(src)
}

// DownstreamPackage is the downstream package name for repo: the
// Downstream.Package template rendered, or the upstream package's name when
// no template is set. The result is a valid package name or an error.
func (v Variant) DownstreamPackage(repo Repository) (string, error) {
	src := v.Downstream.Package
	if src == "" {
		return v.Upstream.Package, nil
	}
	t, err := templateOf(v.downstream, src)
	if err != nil {
		return "", err
	}
	name, err := t.render(repo)
	if err != nil {
		return "", err
	}
	if err := packages.ValidateName(name); err != nil {
		return "", fmt.Errorf("downstream package for %s: %w", repo.FullName(), err)
	}
	return name, nil
}

// DownstreamNamespace is the Namespace template rendered for repo ("" when
// none is set); the result is an RFC 1123 label or an error.
func (v Variant) DownstreamNamespace(repo Repository) (string, error) {
	if v.Namespace == "" {
		return "", nil
	}
	t, err := templateOf(v.namespace, v.Namespace)
	if err != nil {
		return "", err
	}
	ns, err := t.render(repo)
	if err != nil {
		return "", err
	}
	if reason := dnsLabelProblem(ns); reason != "" {
		return "", fmt.Errorf("namespace %q for %s: %s", ns, repo.FullName(), reason)
	}
	return ns, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
