// Package setup registers porchbot's GitHub App through GitHub's App manifest
// flow: a local page posts the manifest built from app.yaml to GitHub, GitHub
// redirects back with a code, and the code is converted into the App's
// credentials.
package setup

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// appYAML is a copy of the repository's app.yaml, kept equal by a test.
//
//go:embed app.yaml
var appYAML []byte

// manifestFile is the part of app.yaml the manifest carries.
type manifestFile struct {
	Name               string            `yaml:"name"`
	Description        string            `yaml:"description"`
	URL                string            `yaml:"url"`
	HookAttributes     map[string]string `yaml:"hook_attributes"`
	Public             bool              `yaml:"public"`
	DefaultEvents      []string          `yaml:"default_events"`
	DefaultPermissions map[string]string `yaml:"default_permissions"`
}

// Manifest is the JSON App manifest GitHub expects in the form field
// "manifest".
type Manifest struct {
	Name               string            `json:"name"`
	Description        string            `json:"description,omitempty"`
	URL                string            `json:"url"`
	HookAttributes     map[string]string `json:"hook_attributes,omitempty"`
	RedirectURL        string            `json:"redirect_url"`
	Public             bool              `json:"public"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
	CallbackURLs       []string          `json:"callback_urls,omitempty"`
}

// BuildManifest builds the manifest from the embedded app.yaml, with
// redirectURL as where GitHub sends the browser back with the code,
// webhookURL (when set) in place of app.yaml's hook URL, and callbackURLs
// (the web catalog's sign-in callback, when it is to be served) as the
// App's user authorization callbacks.
func BuildManifest(redirectURL, webhookURL string, callbackURLs ...string) ([]byte, error) {
	var f manifestFile
	if err := yaml.Unmarshal(appYAML, &f); err != nil {
		return nil, fmt.Errorf("parse embedded app.yaml: %w", err)
	}
	if f.Name == "" || f.URL == "" {
		return nil, fmt.Errorf("embedded app.yaml: name and url are required")
	}
	if webhookURL != "" {
		if f.HookAttributes == nil {
			f.HookAttributes = map[string]string{}
		}
		f.HookAttributes["url"] = webhookURL
	}
	m := Manifest{
		Name: f.Name, Description: f.Description, URL: f.URL, HookAttributes: f.HookAttributes,
		RedirectURL: redirectURL, Public: f.Public,
		DefaultPermissions: f.DefaultPermissions, DefaultEvents: f.DefaultEvents, CallbackURLs: callbackURLs,
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return b, nil
}

// ManifestEvents are the events app.yaml subscribes the App to
// (default_events): the embedded forge's App hears these, as GitHub's
// would.
func ManifestEvents() ([]string, error) {
	var f manifestFile
	if err := yaml.Unmarshal(appYAML, &f); err != nil {
		return nil, fmt.Errorf("parse embedded app.yaml: %w", err)
	}
	return f.DefaultEvents, nil
}
