package bot

// DefaultHandlers returns the handlers porchbot subscribes to, one per
// event (installation and installation_repositories share one).
func DefaultHandlers() Handlers {
	installation := &InstallationHandler{}
	return Handlers{
		"push":                      &PushHandler{},
		"create":                    &CreateHandler{},
		"delete":                    &DeleteHandler{},
		"pull_request":              &PullRequestHandler{},
		"pull_request_review":       &PullRequestReviewHandler{},
		"issue_comment":             &IssueCommentHandler{},
		"check_run":                 &CheckRunHandler{},
		"check_suite":               &CheckSuiteHandler{},
		"installation":              installation,
		"installation_repositories": installation,
		"release":                   &ReleaseHandler{},
	}
}
