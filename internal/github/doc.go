// Package github is porchbot's client layer for the GitHub REST API.
//
// It holds everything between porchbot's logic and the wire:
//
//   - URLs derives the REST, uploads and git base URLs from the one configured
//     base URL, so github.com, GitHub Enterprise Server and the local forge
//     (which follows the GHES layout) share one code path.
//   - Clients hands out go-github clients authenticated as the GitHub App
//     (JWT), as one of its installations (cached, auto-refreshed installation
//     tokens, via ghinstallation) or with a plain token.
//   - Transport is the http.RoundTripper every client shares: retries with
//     backoff, primary and secondary rate-limit handling, spacing of mutating
//     calls, metrics and logging.
//   - API is internal/hub's API over an installation's go-github client, the
//     one place where the lifecycle's calls meet go-github (hub_api.go);
//     HubClients gives it per installation, and PullOf, CheckRunOf,
//     RepositoryOf and the other converters turn webhook payloads into hub
//     values at the App's edge (hub_convert.go).
//
// The package name collides with go-github's, so import it under the alias
// ghclient everywhere else in the module:
//
//	import ghclient "github.com/porchbot/porchbot/internal/github"
//
// and go-github itself under its own name:
//
//	import "github.com/google/go-github/v60/github"
package github
