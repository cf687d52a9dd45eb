package forge

import (
	"fmt"
	"strings"
)

// Seed is the forge's seed file (YAML): users with tokens, organisations,
// repositories with collaborators and initial files, and the accounts the
// App is installed on.
//
//	users:
//	  - {login: alice, token: alice-token}
//	orgs:
//	  - {login: acme, members: [alice], teams: [{slug: platform, members: [alice]}]}
//	repositories:
//	  - name: acme/catalog
//	    defaultBranch: main
//	    private: false
//	    collaborators: {alice: admin, bob: write, carol: read}
//	    files: path/to/dir      # its files make the first commit
//	app:
//	  installations: [acme]
type Seed struct {
	Users        []SeedUser `json:"users,omitempty" yaml:"users,omitempty"`
	Orgs         []SeedOrg  `json:"orgs,omitempty" yaml:"orgs,omitempty"`
	Repositories []SeedRepo `json:"repositories,omitempty" yaml:"repositories,omitempty"`
	App          SeedApp    `json:"app,omitempty" yaml:"app,omitempty"`
}

// SeedUser is a user and its personal token.
type SeedUser struct {
	Login string `json:"login" yaml:"login"`
	Token string `json:"token,omitempty" yaml:"token,omitempty"`
}

// SeedOrg is an organisation, its members and teams.
type SeedOrg struct {
	Login   string     `json:"login" yaml:"login"`
	Members []string   `json:"members,omitempty" yaml:"members,omitempty"`
	Teams   []SeedTeam `json:"teams,omitempty" yaml:"teams,omitempty"`
}

// SeedTeam is a team of an organisation.
type SeedTeam struct {
	Slug    string   `json:"slug" yaml:"slug"`
	Members []string `json:"members,omitempty" yaml:"members,omitempty"`
}

// SeedRepo is a repository.
type SeedRepo struct {
	Name          string            `json:"name" yaml:"name"`
	DefaultBranch string            `json:"defaultBranch,omitempty" yaml:"defaultBranch,omitempty"`
	Description   string            `json:"description,omitempty" yaml:"description,omitempty"`
	Private       bool              `json:"private,omitempty" yaml:"private,omitempty"`
	Topics        []string          `json:"topics,omitempty" yaml:"topics,omitempty"`
	Collaborators map[string]string `json:"collaborators,omitempty" yaml:"collaborators,omitempty"`
	Files         string            `json:"files,omitempty" yaml:"files,omitempty"`
}

// SeedApp lists the accounts the App is installed on.
type SeedApp struct {
	Installations []string `json:"installations,omitempty" yaml:"installations,omitempty"`
}

// Apply creates everything the seed names. Installations need the App to
// be registered first (RegisterApp); the seed only records them otherwise.
func (f *Forge) Apply(s *Seed) error {
	for _, u := range s.Users {
		if _, err := f.AddUser(u.Login, u.Token); err != nil {
			return err
		}
	}
	for _, o := range s.Orgs {
		if _, err := f.AddOrg(o.Login, o.Members...); err != nil {
			return err
		}
		for _, t := range o.Teams {
			if _, err := f.AddTeam(o.Login, t.Slug, t.Members...); err != nil {
				return err
			}
		}
	}
	for _, inst := range s.App.Installations {
		if _, err := f.Install(inst); err != nil {
			return err
		}
	}
	for _, sr := range s.Repositories {
		if err := f.applyRepo(sr); err != nil {
			return fmt.Errorf("forge seed: repository %s: %w", sr.Name, err)
		}
	}
	return nil
}

func (f *Forge) applyRepo(sr SeedRepo) error {
	owner, name, ok := strings.Cut(sr.Name, "/")
	if !ok {
		return fmt.Errorf("name must be owner/name")
	}
	collab := map[string]Permission{}
	for login, ps := range sr.Collaborators {
		p, ok := ParsePermission(ps)
		if !ok {
			return fmt.Errorf("collaborator %s: unknown permission %q (read, triage, write, maintain, admin)", login, ps)
		}
		collab[login] = p
	}
	repo, err := f.CreateRepo(owner, name, RepoOptions{Description: sr.Description, Private: sr.Private,
		DefaultBranch: sr.DefaultBranch, Topics: sr.Topics, Collaborators: collab})
	if err != nil {
		return err
	}
	if sr.Files == "" {
		return nil
	}
	files, err := readDirFiles(sr.Files)
	if err != nil {
		return err
	}
	author := repo.Owner
	_, err = f.CommitFiles(repo.FullName(), repo.DefaultBranch, files, "Initial commit", author)
	return err
}
