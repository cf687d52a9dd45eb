// Package config reads a repository's configuration, .github/porchbot.yaml
// (porchbot.dev/v1alpha1 RepositoryConfig), and checks it against the
// server's limits.
//
// Configuration errors are values to show to users (in the porchbot/config
// check of a pull request that edits the file, in `porchbot validate-config`):
// Parse is strict (unknown keys are errors) and returns every problem at once,
// each naming the file, line and column, in a *ValidationError.
//
// A repository configuration may narrow what the server allows but never
// widen it; see ServerLimits for each rule. A missing file means the
// defaults (Default, DefaultFor). The lifecycle reads the file from the
// deployment branch only; when a version there is broken, it derives the
// last good one from the branch's history, and a Cache saves it the walk.
package config
