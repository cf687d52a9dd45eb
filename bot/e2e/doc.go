// Package e2e holds porchbot's golden end-to-end scenarios: a real
// `porchbot serve` (bot/service) against its embedded local forge,
// users acting only through the forge's GitHub API and git over HTTP, the
// bot's real go-github and go-git clients answering the webhooks. The
// package has no code of its own outside its tests.
package e2e
