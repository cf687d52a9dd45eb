package settings

import (
	"errors"
	"net/url"
	"strings"
)

// catalog reads the web catalog's settings (docs/catalog.md).
func (r *reader) catalog(s *Settings) {
	s.Catalog = strings.ToLower(r.get("PORCHBOT_CATALOG"))
	switch s.Catalog {
	case "auto", "true", "false":
	default:
		r.errorf("PORCHBOT_CATALOG", "%q is not auto, true or false", s.Catalog)
	}
	s.CatalogURL = strings.TrimSuffix(r.get("PORCHBOT_CATALOG_URL"), "/")
	if s.CatalogURL != "" {
		u, err := url.Parse(s.CatalogURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			r.errorf("PORCHBOT_CATALOG_URL", "%q is not an http(s) URL without credentials, query or fragment", s.CatalogURL)
		}
	}
	s.CatalogRefresh = r.duration("PORCHBOT_CATALOG_REFRESH")
	s.ClientID = r.get("PORCHBOT_CLIENT_ID")
	s.ClientSecret, _ = r.secret("PORCHBOT_CLIENT_SECRET", "PORCHBOT_CLIENT_SECRET_PATH", "client secret")
}

// catalogNeeds checks that a catalog enabled with a GitHub App can sign
// viewers in: the App's client id and secret, and the catalog's URL.
func (r *reader) catalogNeeds(s *Settings) {
	if s.Catalog != "true" || s.Embedded() {
		return
	}
	var missing []string
	if s.ClientID == "" {
		missing = append(missing, "the App's client id (--client-id or PORCHBOT_CLIENT_ID)")
	}
	if len(s.ClientSecret) == 0 {
		missing = append(missing, "its client secret (PORCHBOT_CLIENT_SECRET or --client-secret-path)")
	}
	if s.CatalogURL == "" {
		missing = append(missing, "the catalog's URL (--catalog-url or PORCHBOT_CATALOG_URL)")
	}
	if len(missing) > 0 {
		r.errs = append(r.errs, errors.New("the catalog with a GitHub App signs viewers in with the App's user authorization; it needs "+strings.Join(missing, ", ")))
	}
}
