package catalog

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/index"
)

//go:embed templates/*.html templates/catalog.css
var templateFiles embed.FS

// CSS is the catalog's style sheet, served at /catalog.css.
var CSS = mustRead("templates/catalog.css")

func mustRead(name string) []byte {
	b, err := templateFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// Page is one page: its title, the breadcrumbs, the viewer, and the data
// of its body.
type Page struct {
	Title  string
	Crumbs []Crumb
	Login  string
	// CSRF is the viewer's sign-out form token.
	CSRF string
	Data any
	// Refresh, when set, reloads the page after that many seconds (views
	// still loading).
	Refresh int
}

// Crumb is one link of the breadcrumbs.
type Crumb struct{ Text, URL string }

// RepoRow is a line of the repositories page: the view when it is loaded.
type RepoRow struct {
	Ref  RepoRef
	Repo *Repository
}

// PackageView is the package page's data.
type PackageView struct {
	Repo    *Repository
	Package *Package
}

// DiffView is the diff page's data.
type DiffView struct {
	Repo    *Repository
	Package *Package
	Diff    *Diff
}

// The pages (the body template each renders in the layout).
const (
	PageIndex   = "index.html"
	PageRepo    = "repo.html"
	PagePackage = "package.html"
	PageDiff    = "diff.html"
	PageMessage = "message.html"
)

var pages = parsePages()

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"repoURL":    RepoURL,
		"pkgURL":     PackageURL,
		"diffURL":    DiffURL,
		"releaseURL": func(r *Repository, tag string) string { return r.Web + "/releases/tag/" + escapePath(tag) },
		"treeURL": func(r *Repository, ref, pkg string) string {
			return r.Web + "/tree/" + escapePath(ref) + "/" + escapePath(packageDir(r.Root, pkg))
		},
		"compareURL": func(r *Repository, from, to string) string {
			return r.Web + "/compare/" + escapePath(from) + "..." + escapePath(to)
		},
		"date": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		},
		"short": func(s string) string {
			s = strings.TrimPrefix(s, "sha256:")
			if len(s) > 12 {
				return s[:12]
			}
			return s
		},
		"join": strings.Join,
		"prev": func(revs []index.Revision, i int) *index.Revision {
			if i+1 < len(revs) {
				return &revs[i+1]
			}
			return nil
		},
		"opClass": func(op string) string {
			switch op {
			case "+":
				return "add"
			case "-":
				return "del"
			case "…":
				return "skip"
			}
			return "ctx"
		},
		"maxLines": func() int { return MaxDiffLines },
	}
	base := template.Must(template.New("catalog").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/parts.html"))
	out := map[string]*template.Template{}
	for _, p := range []string{PageIndex, PageRepo, PagePackage, PageDiff, PageMessage} {
		out[p] = template.Must(template.Must(base.Clone()).ParseFS(templateFiles, "templates/"+p))
	}
	return out
}

// Render writes page with p. It renders into memory first, so a template
// error never leaves half a page.
func Render(w io.Writer, page string, p Page) error {
	t, ok := pages[page]
	if !ok {
		return fmt.Errorf("catalog: no page %q", page)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", p); err != nil {
		return fmt.Errorf("catalog: render %s: %w", page, err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// RepoURL is a repository's page.
func RepoURL(r RepoRef) string {
	return "/repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name)
}

// PackageURL is a package's page.
func PackageURL(r RepoRef, pkg string) string { return RepoURL(r) + "/packages/" + escapePath(pkg) }

// DiffURL is the page of a package's diff between two revisions.
func DiffURL(r RepoRef, pkg string, from, to int) string {
	return RepoURL(r) + "/diff/" + escapePath(pkg) + "?from=" + strconv.Itoa(from) + "&to=" + strconv.Itoa(to)
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// packageDir is package pkg's directory under root.
func packageDir(root, pkg string) string {
	if r := strings.Trim(root, "/"); r != "" && r != "." {
		return r + "/" + pkg
	}
	return pkg
}

// PackageDir is package pkg's directory in the repository.
func (r *Repository) PackageDir(pkg string) string { return packageDir(r.Root, pkg) }
