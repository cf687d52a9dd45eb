package hub

import "time"

// CheckRun is a check run as GitHub reports it.
type CheckRun struct {
	ID      int64
	Name    string
	HeadSHA string
	// Status is "queued", "in_progress" or "completed".
	Status     string
	Conclusion string
	ExternalID string
	DetailsURL string
	HTMLURL    string
	// AppSlug is the slug of the App that wrote the run.
	AppSlug     string
	StartedAt   time.Time
	CompletedAt time.Time
	Output      CheckOutput
}

// CheckOutput is a check run's title, summary, text and annotations.
type CheckOutput struct {
	Title, Summary, Text string
	Annotations          []CheckAnnotation
}

// CheckAnnotation is a check run annotation; lines and columns 1-based,
// columns 0 when not given.
type CheckAnnotation struct {
	Path                   string
	StartLine, EndLine     int
	StartColumn, EndColumn int
	// Level is "notice", "warning" or "failure".
	Level, Title, Message, RawDetails string
}

// CheckRunWrite creates or updates a check run. An update must name the
// run (GitHub's update sends name always) and ignores StartedAt; an empty
// Status, Conclusion, ExternalID or DetailsURL, and a nil Output, leave
// the run's as they are.
type CheckRunWrite struct {
	Name       string
	HeadSHA    string
	Status     string
	Conclusion string
	ExternalID string
	DetailsURL string
	// StartedAt and CompletedAt are not sent when zero.
	StartedAt, CompletedAt time.Time
	Output                 *CheckOutput
}

// CheckQuery filters a commit's check runs.
type CheckQuery struct {
	// Name is the check run name ("" for every run).
	Name string
	// AppID keeps the runs of one App (0: every App's).
	AppID int64
	// Filter is "latest" (GitHub's default) or "all".
	Filter string
	Page
}

// CheckRuns is one page of a commit's check runs.
type CheckRuns struct {
	Runs []CheckRun
	// Total is how many runs match, on every page.
	Total int
}

// CommitStatus is a commit status (a deployer's, a CI's) as GitHub reports
// it.
type CommitStatus struct {
	Context string
	// State is "success", "failure", "error" or "pending".
	State       string
	Description string
	TargetURL   string
	UpdatedAt   time.Time
}
