package forge

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// AddUser creates a user with a personal token (may be empty: no API access).
func (f *Forge) AddUser(login, token string) (*Account, error) {
	return f.addAccount(login, "User", token)
}

func (f *Forge) addAccount(login, typ, token string) (*Account, error) {
	if !validLogin(login) {
		return nil, fmt.Errorf("forge: invalid login %q", login)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key := strings.ToLower(login)
	if _, ok := f.accounts[key]; ok {
		return nil, fmt.Errorf("forge: account %q already exists", login)
	}
	a := &Account{ID: f.newID(), Login: login, Type: typ, Token: token,
		Email: fmt.Sprintf("%s@users.noreply.forge.local", strings.ToLower(strings.TrimSuffix(login, "[bot]")))}
	f.accounts[key] = a
	if token != "" {
		f.tokens[token] = &principal{kind: principalUser, account: a}
	}
	return a, nil
}

// validLogin accepts GitHub's logins: alphanumerics and single hyphens, and
// the "[bot]" suffix of app bot users.
func validLogin(login string) bool {
	l := strings.TrimSuffix(login, "[bot]")
	if l == "" || len(l) > 39 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
		return false
	}
	for _, c := range l {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// AddOrg creates an organisation with the given member logins.
func (f *Forge) AddOrg(login string, members ...string) (*Org, error) {
	a, err := f.addAccount(login, "Organization", "")
	if err != nil {
		return nil, err
	}
	o := &Org{Account: a, Members: map[string]bool{}, Teams: map[string]*Team{}}
	for _, m := range members {
		o.Members[strings.ToLower(m)] = true
	}
	f.mu.Lock()
	f.orgs[strings.ToLower(login)] = o
	f.mu.Unlock()
	return o, nil
}

// AddTeam creates a team in an organisation.
func (f *Forge) AddTeam(org, slug string, members ...string) (*Team, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orgs[strings.ToLower(org)]
	if !ok {
		return nil, fmt.Errorf("forge: no organisation %q", org)
	}
	t := &Team{ID: f.newID(), Slug: strings.ToLower(slug), Name: slug, Members: map[string]bool{}}
	for _, m := range members {
		t.Members[strings.ToLower(m)] = true
		o.Members[strings.ToLower(m)] = true
	}
	o.Teams[t.Slug] = t
	return t, nil
}

// org returns an organisation by login.
func (f *Forge) org(login string) (*Org, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	o, ok := f.orgs[strings.ToLower(login)]
	return o, ok
}

// RepoOptions describe a new repository.
type RepoOptions struct {
	Description   string
	Private       bool
	DefaultBranch string // default "main"
	Topics        []string
	Collaborators map[string]Permission
}

// CreateRepo creates "owner/name" with an empty bare git repository.
func (f *Forge) CreateRepo(owner, name string, o RepoOptions) (*Repo, error) {
	if !validRepoName(name) {
		return nil, fmt.Errorf("forge: invalid repository name %q", name)
	}
	acct, ok := f.Account(owner)
	if !ok {
		return nil, fmt.Errorf("forge: no owner %q", owner)
	}
	if o.DefaultBranch == "" {
		o.DefaultBranch = "main"
	}
	now := f.now()
	r := &Repo{
		ID: f.newID(), Owner: acct, Name: name, Description: o.Description, Private: o.Private,
		DefaultBranch: o.DefaultBranch, Topics: o.Topics, Path: f.repoPath(acct.Login, name),
		CreatedAt: now, UpdatedAt: now, PushedAt: now,
		Collaborators: map[string]Permission{}, nextNumber: 1,
		Issues: map[int]*Issue{}, Pulls: map[int]*Pull{}, Comments: map[int64]*Comment{},
		Reviews: map[int64]*Review{}, Labels: map[string]*Label{}, CheckRuns: map[int64]*CheckRun{},
		Suites: map[int64]*CheckSuite{}, Releases: map[int64]*Release{}, Reactions: map[int64]*Reaction{},
	}
	for login, p := range o.Collaborators {
		r.Collaborators[strings.ToLower(login)] = p
	}
	key := strings.ToLower(r.FullName())
	f.mu.Lock()
	if _, exists := f.repos[key]; exists {
		f.mu.Unlock()
		return nil, errAlreadyExists
	}
	f.repos[key] = r
	f.mu.Unlock()
	if err := f.git.initBare(r.Path, r.DefaultBranch); err != nil {
		f.mu.Lock()
		delete(f.repos, key)
		f.mu.Unlock()
		return nil, err
	}
	return r, nil
}

func validRepoName(name string) bool {
	if name == "" || len(name) > 100 || name == "." || name == ".." || strings.HasSuffix(name, ".git") {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// SetCollaborator grants a user a permission on a repository.
func (f *Forge) SetCollaborator(fullName, login string, p Permission) error {
	r, err := f.repoNamed(fullName)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.Collaborators[strings.ToLower(login)] = p
	r.mu.Unlock()
	return nil
}

// permission is what p may do on r, as GitHub computes it: owners are
// admins, collaborators have their grant, organisation members read, an
// installation of the App on the owner writes, anyone reads a public one.
func (f *Forge) permission(p *principal, r *Repo) Permission {
	base := PermNone
	if !r.Private {
		base = PermRead
	}
	if p == nil {
		return base
	}
	switch p.kind {
	case principalInstallation:
		if p.installation.Account.ID == r.Owner.ID {
			return PermWrite
		}
		return base
	case principalUser:
		if p.viaApp && f.installationFor(r) == nil {
			return base
		}
		login := strings.ToLower(p.account.Login)
		if r.Owner.ID == p.account.ID {
			return PermAdmin
		}
		if o, ok := f.org(r.Owner.Login); ok && o.Members[login] && base < PermRead {
			base = PermRead
		}
		r.mu.Lock()
		c := r.Collaborators[login]
		parent := r.Parent
		r.mu.Unlock()
		if c > base {
			return c
		}
		if parent != nil && r.Private && base < PermRead && f.permission(p, parent) >= PermRead {
			// A private fork inherits its parent's readers, as on GitHub.
			base = PermRead
		}
	}
	return base
}

// userPermission is a login's permission on r (for the collaborator
// permission endpoint).
func (f *Forge) userPermission(login string, r *Repo) Permission {
	a, ok := f.Account(login)
	if !ok {
		return PermNone
	}
	if a.Type == "Bot" {
		for _, inst := range f.installationsList() {
			if inst.Account.ID == r.Owner.ID && f.app != nil && f.app.Bot.ID == a.ID {
				return PermWrite
			}
		}
	}
	return f.permission(&principal{kind: principalUser, account: a}, r)
}

// RegisterApp registers the GitHub App: its id, slug, public key (to verify
// its JWTs), and the webhook URL and secret deliveries go to. The App's bot
// user "<slug>[bot]" is created with it.
func (f *Forge) RegisterApp(id int64, slug string, publicKeyPEM []byte, webhookURL string, secret []byte) (*AppInfo, error) {
	if _, err := parseRSAPublicKey(publicKeyPEM); err != nil {
		return nil, fmt.Errorf("forge: app public key: %w", err)
	}
	bot, ok := f.Account(slug + "[bot]")
	if !ok {
		var err error
		if bot, err = f.addAccount(slug+"[bot]", "Bot", ""); err != nil {
			return nil, err
		}
	}
	owner, _ := f.Account("github")
	if owner == nil {
		owner = bot
	}
	app := &AppInfo{ID: id, Slug: slug, Name: slug, Owner: owner, Bot: bot, PublicKeyPEM: publicKeyPEM,
		WebhookURL: webhookURL, WebhookSecret: secret, ClientID: "Iv1." + randomHex(8), ClientSecret: randomHex(20)}
	f.mu.Lock()
	f.app = app
	f.mu.Unlock()
	return app, nil
}

// SetAppEvents sets the events the App subscribes to (its registration's
// default_events); nil restores the forge's default list. The installation
// events are delivered whatever the list says, as GitHub does.
func (f *Forge) SetAppEvents(events []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.app != nil {
		f.app.Events = append([]string(nil), events...)
		if events == nil {
			f.app.Events = nil
		}
	}
}

// SetWebhook changes where deliveries go (e.g. once the bot's port is known).
func (f *Forge) SetWebhook(url string, secret []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.app != nil {
		f.app.WebhookURL = url
		f.app.WebhookSecret = secret
	}
}

func (f *Forge) appInfo() *AppInfo {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.app
}

// Install installs the App on an account: every repository of that account,
// present and future, is reachable with the installation's tokens.
func (f *Forge) Install(accountLogin string) (*Installation, error) {
	a, ok := f.Account(accountLogin)
	if !ok {
		return nil, fmt.Errorf("forge: no account %q", accountLogin)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, inst := range f.installations {
		if inst.Account.ID == a.ID {
			return inst, nil
		}
	}
	inst := &Installation{ID: f.newID(), Account: a}
	f.installations[inst.ID] = inst
	return inst, nil
}

func (f *Forge) installationsList() []*Installation {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]*Installation, 0, len(f.installations))
	for _, i := range f.installations {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// installationFor is the installation covering a repository, if any.
func (f *Forge) installationFor(r *Repo) *Installation {
	for _, i := range f.installationsList() {
		if i.Account.ID == r.Owner.ID {
			return i
		}
	}
	return nil
}

// InstallationToken issues a token for an installation, as
// POST /app/installations/{id}/access_tokens does.
func (f *Forge) InstallationToken(id int64, ttl time.Duration) (string, time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, ok := f.installations[id]
	if !ok || f.app == nil {
		return "", time.Time{}, fmt.Errorf("forge: no installation %d", id)
	}
	tok := "ghs_" + randomHex(18)
	exp := f.now().Add(ttl)
	f.tokens[tok] = &principal{kind: principalInstallation, account: f.app.Bot, installation: inst, expires: exp}
	return tok, exp, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("forge: crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}

func sortRepos(rs []*Repo) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
}
