package github

import (
	"fmt"
	"net/url"
	"strings"
)

const (
	dotComAPI     = "https://api.github.com/"
	dotComUploads = "https://uploads.github.com/"
	dotComWeb     = "https://github.com/"
)

// URLs are the base URLs derived from one configured GitHub base URL. Every
// field ends with a slash.
type URLs struct {
	// API is the REST API base: https://api.github.com/ or <base>/api/v3/.
	API string
	// Uploads is the upload API base: https://uploads.github.com/ or
	// <base>/api/uploads/.
	Uploads string
	// Web is the web and git smart-HTTP base: https://github.com/ or <base>/.
	Web string
	// Enterprise is true for anything but github.com: GitHub Enterprise
	// Server, or the local forge which follows the same layout.
	Enterprise bool
}

// ParseBaseURL derives URLs from a configured base URL.
//
// Empty, https://github.com and https://api.github.com select github.com.
// Anything else is taken as a GitHub Enterprise Server style host: REST at
// <base>/api/v3/, uploads at <base>/api/uploads/, git at <base>/. The base
// may be given with or without a trailing /api/v3.
func ParseBaseURL(base string) (URLs, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return dotComURLs(), nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return URLs{}, fmt.Errorf("parse GitHub base URL %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return URLs{}, fmt.Errorf("GitHub base URL %q: scheme must be http or https", base)
	}
	if u.Host == "" {
		return URLs{}, fmt.Errorf("GitHub base URL %q: missing host", base)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return URLs{}, fmt.Errorf("GitHub base URL %q: must not carry credentials, a query or a fragment", base)
	}

	path := strings.TrimRight(u.EscapedPath(), "/")
	path = strings.TrimSuffix(path, "/api/v3")
	host := strings.ToLower(u.Host)
	if path == "" && (host == "github.com" || host == "www.github.com" || host == "api.github.com") {
		return dotComURLs(), nil
	}

	root := u.Scheme + "://" + u.Host + path
	return URLs{
		API:        root + "/api/v3/",
		Uploads:    root + "/api/uploads/",
		Web:        root + "/",
		Enterprise: true,
	}, nil
}

func dotComURLs() URLs {
	return URLs{API: dotComAPI, Uploads: dotComUploads, Web: dotComWeb}
}

// APIBase is API without its trailing slash, the form ghinstallation expects
// in its BaseURL fields.
func (u URLs) APIBase() string { return strings.TrimSuffix(u.API, "/") }

// GitURL is the smart-HTTP clone URL of owner/repo, e.g.
// https://github.com/owner/repo.git.
func (u URLs) GitURL(owner, repo string) string {
	return u.Web + url.PathEscape(owner) + "/" + url.PathEscape(repo) + ".git"
}
