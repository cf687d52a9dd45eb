package forge

import (
	"encoding/json"
	"time"
)

// accountsEpoch is when the forge's accounts, teams and organisations
// were made, as their created_at and updated_at say (the forge keeps no
// such time; a fixed one keeps answers stable for ETags).
var accountsEpoch = time.Unix(1700000000, 0).UTC()

// objectMap is a go-github object as a map, to add the members its type
// lacks.
func objectMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	m := map[string]any{}
	if json.Unmarshal(b, &m) != nil {
		return map[string]any{}
	}
	return m
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// repoCounts counts an account's public and private repositories.
func (f *Forge) repoCounts(login string) (public, private int) {
	for _, r := range f.reposOf(login) {
		if r.Private {
			private++
		} else {
			public++
		}
	}
	return public, private
}

// publicUserObject is a user as GET /users/{login} answers.
func (f *Forge) publicUserObject(a *Account) map[string]any {
	m := objectMap(f.userObject(a))
	public, _ := f.repoCounts(a.Login)
	for k, v := range map[string]any{
		"name": orNull(a.Name), "email": orNull(a.Email), "bio": nil, "blog": "", "company": nil, "location": nil,
		"hireable": nil, "twitter_username": nil, "followers": 0, "following": 0, "public_gists": 0,
		"public_repos": public, "created_at": ts(accountsEpoch), "updated_at": ts(accountsEpoch),
	} {
		m[k] = v
	}
	return m
}

// privateUserObject is the caller as GET /user answers.
func (f *Forge) privateUserObject(a *Account) map[string]any {
	m := f.publicUserObject(a)
	_, private := f.repoCounts(a.Login)
	for k, v := range map[string]any{
		"collaborators": 0, "disk_usage": 0, "owned_private_repos": private, "total_private_repos": private,
		"private_gists": 0, "two_factor_authentication": false,
	} {
		m[k] = v
	}
	return m
}

// orgFullObject is an organisation as GET /orgs/{org} answers (and a
// team's "organization").
func (f *Forge) orgFullObject(a *Account) map[string]any {
	m := objectMap(f.orgObject(a))
	public, _ := f.repoCounts(a.Login)
	for k, v := range map[string]any{
		"name": a.Login, "html_url": f.webBase() + "/" + a.Login, "type": "Organization",
		"has_organization_projects": false, "has_repository_projects": false, "public_repos": public,
		"public_gists": 0, "followers": 0, "following": 0, "created_at": ts(accountsEpoch),
		"updated_at": ts(accountsEpoch), "archived_at": nil, "is_verified": false,
	} {
		m[k] = v
	}
	return m
}
