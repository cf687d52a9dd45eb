package forge

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/strictyaml"
)

// Fields of each mapping of a seed file.
var (
	seedFields     = []string{"users", "orgs", "repositories", "app"}
	seedUserFields = []string{"login", "token"}
	seedOrgFields  = []string{"login", "members", "teams"}
	seedTeamFields = []string{"slug", "members"}
	seedRepoFields = []string{"name", "defaultBranch", "description", "private", "topics", "collaborators", "files"}
	seedAppFields  = []string{"installations"}
)

// LoadSeed reads a seed file strictly: unknown keys and values of the wrong
// shape are errors, each as "file:line:col: field: message" (every problem
// at once), naming the seed's own fields. Relative `files` paths are
// resolved against the seed file's directory.
func LoadSeed(path string) (*Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // "open PATH: ..." says it all
	}
	s, err := ParseSeed(path, data)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(path)
	for i := range s.Repositories {
		if f := s.Repositories[i].Files; f != "" && !filepath.IsAbs(f) {
			s.Repositories[i].Files = filepath.Join(base, f)
		}
	}
	return s, nil
}

// ParseSeed reads a seed file's content; problems name file.
func ParseSeed(file string, data []byte) (*Seed, error) {
	doc, err := strictyaml.Parse(file, data, strictyaml.DefaultLimits)
	if err != nil {
		return nil, err
	}
	s := &Seed{}
	if doc == nil {
		return s, nil
	}
	d := seedDecoder{r: strictyaml.NewReader(file)}
	f, ok := d.r.Mapping(strictyaml.Root(doc), "", seedFields...)
	if !ok {
		return nil, d.r.Err()
	}
	d.each(f["users"], "users", func(n *yaml.Node, field string) {
		if m, ok := d.r.Mapping(n, field, seedUserFields...); ok {
			s.Users = append(s.Users, SeedUser{Login: d.required(n, m, field, "login"), Token: d.str(m, field, "token")})
		}
	})
	d.each(f["orgs"], "orgs", func(n *yaml.Node, field string) {
		m, ok := d.r.Mapping(n, field, seedOrgFields...)
		if !ok {
			return
		}
		o := SeedOrg{Login: d.required(n, m, field, "login"), Members: d.strs(m, field, "members")}
		d.each(m["teams"], strictyaml.Join(field, "teams"), func(n *yaml.Node, field string) {
			if tm, ok := d.r.Mapping(n, field, seedTeamFields...); ok {
				o.Teams = append(o.Teams, SeedTeam{Slug: d.required(n, tm, field, "slug"), Members: d.strs(tm, field, "members")})
			}
		})
		s.Orgs = append(s.Orgs, o)
	})
	d.each(f["repositories"], "repositories", func(n *yaml.Node, field string) {
		m, ok := d.r.Mapping(n, field, seedRepoFields...)
		if !ok {
			return
		}
		r := SeedRepo{Name: d.required(n, m, field, "name"), DefaultBranch: d.str(m, field, "defaultBranch"),
			Description: d.str(m, field, "description"), Topics: d.strs(m, field, "topics"), Files: d.str(m, field, "files")}
		if v := m["private"]; v != nil {
			r.Private, _ = d.r.Bool(v, strictyaml.Join(field, "private"))
		}
		if v := m["collaborators"]; v != nil {
			r.Collaborators, _ = d.r.StringMap(v, strictyaml.Join(field, "collaborators"))
		}
		s.Repositories = append(s.Repositories, r)
	})
	if v := f["app"]; v != nil {
		if m, ok := d.r.Mapping(v, "app", seedAppFields...); ok {
			s.App.Installations = d.strs(m, "app", "installations")
		}
	}
	if err := d.r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// seedDecoder reads the parts of a seed, recording problems in r.
type seedDecoder struct{ r *strictyaml.Reader }

// each calls fn with every item of the sequence n (absent: none).
func (d seedDecoder) each(n *yaml.Node, field string, fn func(n *yaml.Node, field string)) {
	if n == nil {
		return
	}
	items, _ := d.r.Sequence(n, field)
	for i, it := range items {
		fn(it, strictyaml.Index(field, i))
	}
}

func (d seedDecoder) str(m map[string]*yaml.Node, field, key string) string {
	v := m[key]
	if v == nil {
		return ""
	}
	s, _ := d.r.String(v, strictyaml.Join(field, key))
	return s
}

func (d seedDecoder) required(n *yaml.Node, m map[string]*yaml.Node, field, key string) string {
	if !d.r.Require(n, field, m, key) {
		return ""
	}
	return d.str(m, field, key)
}

func (d seedDecoder) strs(m map[string]*yaml.Node, field, key string) []string {
	v := m[key]
	if v == nil {
		return nil
	}
	s, _, _ := d.r.Strings(v, strictyaml.Join(field, key))
	return s
}
