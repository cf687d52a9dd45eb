package bot

// DefaultHandlers returns the handlers of the events porchbot acts on, one
// per event (installation and installation_repositories share one). They
// are app.yaml's default_events plus the two installation events GitHub
// sends every App; docs/app-permissions.md justifies each, and
// TestAppManifestMatchesHandlers keeps the three in step.
func DefaultHandlers() Handlers {
	installation := &InstallationHandler{}
	return Handlers{
		"push":                      &PushHandler{},
		"pull_request":              &PullRequestHandler{},
		"pull_request_review":       &PullRequestReviewHandler{},
		"issue_comment":             &IssueCommentHandler{},
		"issues":                    &IssuesHandler{},
		"check_run":                 &CheckRunHandler{},
		"check_suite":               &CheckSuiteHandler{},
		"installation":              installation,
		"installation_repositories": installation,
	}
}
