package forge

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesChecks serves check runs and check suites (the Checks API).
// Writing is for the App's installation tokens only, as on GitHub.
func (f *Forge) routesChecks(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/check-runs", f.repoHandler(PermRead, checkWriter(withBody(f.createCheckRun)))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/check-runs/{id}", f.repoHandler(PermRead, f.getCheckRun)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/check-runs/{id}", f.repoHandler(PermRead, checkWriter(f.updateCheckRun))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/check-runs/{id}/annotations", f.repoHandler(PermRead, f.listCheckRunAnnotations)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/check-runs/{id}/rerequest", f.repoHandler(PermWrite, rerequester(f.rerequestCheckRun))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/check-suites", f.repoHandler(PermRead, checkWriter(withBody(f.createCheckSuite)))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/check-suites/{id}", f.repoHandler(PermRead, f.getCheckSuite)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/check-suites/{id}/check-runs", f.repoHandler(PermRead, f.listSuiteCheckRuns)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/check-suites/{id}/rerequest", f.repoHandler(PermWrite, rerequester(f.rerequestCheckSuite))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/commits/{ref:.+}/check-runs", f.repoHandler(PermRead, f.listRefCheckRuns)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/commits/{ref:.+}/check-suites", f.repoHandler(PermRead, f.listRefCheckSuites)).Methods(http.MethodGet)
}

// GitHub's limits on check run output.
const (
	maxAnnotationsPerRequest = 50
	maxCheckOutputChars      = 65535
	maxCheckActions          = 3
)

var (
	checkStatuses    = map[string]bool{"queued": true, "in_progress": true, "completed": true}
	checkConclusions = map[string]bool{"action_required": true, "cancelled": true, "failure": true,
		"neutral": true, "success": true, "skipped": true, "stale": true, "timed_out": true}
	annotationLevels = map[string]bool{"notice": true, "warning": true, "failure": true}
)

// checkRunRequest is the body of create and update.
type checkRunRequest struct {
	Name        *string           `json:"name"`
	HeadSHA     *string           `json:"head_sha"`
	DetailsURL  *string           `json:"details_url"`
	ExternalID  *string           `json:"external_id"`
	Status      *string           `json:"status"`
	Conclusion  *string           `json:"conclusion"`
	StartedAt   *github.Timestamp `json:"started_at"`
	CompletedAt *github.Timestamp `json:"completed_at"`
	Output      *checkOutputReq   `json:"output"`
	Actions     []map[string]any  `json:"actions"` // accepted (at most 3), not kept
}

type checkOutputReq struct {
	Title       *string          `json:"title"`
	Summary     *string          `json:"summary"`
	Text        *string          `json:"text"`
	Annotations []checkAnnotReq  `json:"annotations"`
	Images      []map[string]any `json:"images"` // accepted, not kept
}

type checkAnnotReq struct {
	Path            string `json:"path"`
	StartLine       *int   `json:"start_line"`
	EndLine         *int   `json:"end_line"`
	StartColumn     *int   `json:"start_column"`
	EndColumn       *int   `json:"end_column"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title"`
	RawDetails      string `json:"raw_details"`
}

// checkWriter admits the App's installation tokens with write access to
// the repository; anyone else is refused as GitHub refuses them.
// Served under repoHandler(PermRead, ...).
func checkWriter(h repoHandlerFunc) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		if rc.caller == nil || rc.caller.kind != principalInstallation {
			writeError(w, http.StatusForbidden, "You must authenticate via a GitHub App.")
			return
		}
		if rc.perm < PermWrite {
			writeError(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		h(w, r, rc)
	}
}

// validateCheckRunRequest checks a create (create=true) or update body,
// answering 422 as GitHub does; false when it answered.
func validateCheckRunRequest(w http.ResponseWriter, req *checkRunRequest, create bool) bool {
	if create {
		if req.Name == nil || strings.TrimSpace(*req.Name) == "" {
			validationFailed(w, "CheckRun", "name", "missing_field", "name is required")
			return false
		}
		if req.HeadSHA == nil || *req.HeadSHA == "" {
			validationFailed(w, "CheckRun", "head_sha", "missing_field", "head_sha is required")
			return false
		}
	}
	if req.Status != nil && !checkStatuses[*req.Status] {
		if *req.Status == "waiting" || *req.Status == "requested" || *req.Status == "pending" {
			validationFailed(w, "CheckRun", "status", "invalid", "Only GitHub Actions can set a status of waiting, pending, or requested.")
			return false
		}
		validationFailed(w, "CheckRun", "status", "invalid", fmt.Sprintf("status %q is not one of queued, in_progress, completed", *req.Status))
		return false
	}
	if req.Conclusion != nil && !checkConclusions[*req.Conclusion] {
		validationFailed(w, "CheckRun", "conclusion", "invalid", fmt.Sprintf("conclusion %q is not a valid conclusion", *req.Conclusion))
		return false
	}
	if req.Status != nil && *req.Status == "completed" && req.Conclusion == nil {
		validationFailed(w, "CheckRun", "conclusion", "missing_field", "conclusion is required when status is completed")
		return false
	}
	if len(req.Actions) > maxCheckActions {
		validationFailed(w, "CheckRun", "actions", "invalid", "at most 3 actions are allowed")
		return false
	}
	if o := req.Output; o != nil {
		if o.Title == nil || o.Summary == nil {
			validationFailed(w, "CheckRun", "output", "missing_field", "output requires title and summary")
			return false
		}
		if utf8.RuneCountInString(*o.Summary) > maxCheckOutputChars {
			validationFailed(w, "CheckRun", "output.summary", "invalid", "summary is too long (maximum is 65535 characters)")
			return false
		}
		if o.Text != nil && utf8.RuneCountInString(*o.Text) > maxCheckOutputChars {
			validationFailed(w, "CheckRun", "output.text", "invalid", "text is too long (maximum is 65535 characters)")
			return false
		}
		if len(o.Annotations) > maxAnnotationsPerRequest {
			validationFailed(w, "CheckRun", "output.annotations", "invalid",
				fmt.Sprintf("%d annotations given; at most 50 are allowed per request, send more with updates", len(o.Annotations)))
			return false
		}
		for i, a := range o.Annotations {
			if msg := a.problem(); msg != "" {
				validationFailed(w, "CheckRun", "output.annotations", "invalid", fmt.Sprintf("annotation %d: %s", i, msg))
				return false
			}
		}
	}
	return true
}

func (a checkAnnotReq) problem() string {
	switch {
	case a.Path == "":
		return "path is required"
	case a.StartLine == nil || a.EndLine == nil:
		return "start_line and end_line are required"
	case *a.StartLine < 1 || *a.EndLine < *a.StartLine:
		return "start_line must be at least 1 and end_line at least start_line"
	case !annotationLevels[a.AnnotationLevel]:
		return fmt.Sprintf("annotation_level %q is not one of notice, warning, failure", a.AnnotationLevel)
	case a.Message == "":
		return "message is required"
	case (a.StartColumn != nil || a.EndColumn != nil) && *a.StartLine != *a.EndLine:
		return "start_column and end_column are only allowed when start_line equals end_line"
	case utf8.RuneCountInString(a.Message) > 64*1024 || len(a.RawDetails) > 64*1024:
		return "message and raw_details are limited to 64 kilobytes"
	}
	return ""
}

func (a checkAnnotReq) annotation() CheckAnnotation {
	out := CheckAnnotation{Path: a.Path, StartLine: *a.StartLine, EndLine: *a.EndLine, AnnotationLevel: a.AnnotationLevel,
		Message: a.Message, Title: a.Title, RawDetails: a.RawDetails}
	if a.StartColumn != nil {
		out.StartColumn = *a.StartColumn
	}
	if a.EndColumn != nil {
		out.EndColumn = *a.EndColumn
	}
	return out
}

// applyCheckRunRequest sets the fields a request names on run; it reports
// whether the run has just completed.
func (f *Forge) applyCheckRunRequest(run *CheckRun, req *checkRunRequest) (completedNow bool) {
	wasCompleted := run.Status == "completed"
	if req.Name != nil && *req.Name != "" {
		run.Name = *req.Name
	}
	if req.DetailsURL != nil {
		run.DetailsURL = *req.DetailsURL
	}
	if req.ExternalID != nil {
		run.ExternalID = *req.ExternalID
	}
	if req.StartedAt != nil {
		t := req.StartedAt.UTC()
		run.StartedAt = &t
	}
	if req.Status != nil {
		run.Status = *req.Status
	}
	if req.Conclusion != nil {
		// A conclusion completes the run, as on GitHub.
		run.Status = "completed"
		run.Conclusion = *req.Conclusion
	}
	if run.Status != "completed" {
		run.Conclusion = ""
		run.CompletedAt = nil
	} else {
		if req.CompletedAt != nil {
			t := req.CompletedAt.UTC()
			run.CompletedAt = &t
		} else if run.CompletedAt == nil || !wasCompleted {
			t := f.now()
			run.CompletedAt = &t
		}
	}
	if o := req.Output; o != nil {
		run.Title = *o.Title
		run.Summary = *o.Summary
		if o.Text != nil {
			run.Text = *o.Text
		}
		for _, a := range o.Annotations {
			run.Annotations = append(run.Annotations, a.annotation())
		}
	}
	if run.DetailsURL == "" {
		run.DetailsURL = f.appHomepage()
	}
	return run.Status == "completed" && !wasCompleted
}

func (f *Forge) createCheckRun(w http.ResponseWriter, r *http.Request, rc *reqCtx, req checkRunRequest) {
	if !validateCheckRunRequest(w, &req, true) {
		return
	}
	sha := strings.ToLower(*req.HeadSHA)
	if t, err := f.git.objectType(rc.repo.Path, sha); err != nil || t != "commit" || !sha40Pattern.MatchString(sha) {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+*req.HeadSHA)
		return
	}
	now := f.now()
	rc.repo.mu.Lock()
	suite, _ := f.ensureSuiteLocked(rc.repo, sha, "", "")
	run := &CheckRun{ID: f.newID(), SuiteID: suite.ID, HeadSHA: sha, Status: "queued", StartedAt: &now}
	completed := f.applyCheckRunRequest(run, &req)
	rc.repo.CheckRuns[run.ID] = run
	suiteDone := f.recomputeSuiteLocked(rc.repo, suite)
	view := runViewLocked(rc.repo, run)
	rc.repo.mu.Unlock()

	f.emitCheckRun("created", rc.repo, view, rc.actor())
	if completed {
		f.emitCheckRun("completed", rc.repo, view, rc.actor())
	}
	if suiteDone {
		f.emitCheckSuite("completed", rc.repo, view.suite, rc.actor())
	}
	writeJSON(w, r, http.StatusCreated, f.checkRunObject(rc.repo, view, false))
}

// checkRunByVar finds {id} in repo; 404 when absent.
func (f *Forge) checkRunByVar(rc *reqCtx) (*CheckRun, bool) {
	id, ok := rc.intVar("id")
	if !ok {
		return nil, false
	}
	rc.repo.mu.Lock()
	run, found := rc.repo.CheckRuns[id]
	rc.repo.mu.Unlock()
	if !found {
		notFound(rc.w)
		return nil, false
	}
	return run, true
}

func (f *Forge) getCheckRun(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	run, ok := f.checkRunByVar(rc)
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	view := runViewLocked(rc.repo, run)
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.checkRunObject(rc.repo, view, false))
}

func (f *Forge) updateCheckRun(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	run, ok := f.checkRunByVar(rc)
	if !ok {
		return
	}
	req, ok := decode[checkRunRequest](rc)
	if !ok || !validateCheckRunRequest(w, &req, false) {
		return
	}
	rc.repo.mu.Lock()
	completed := f.applyCheckRunRequest(run, &req)
	suiteDone := false
	if s, ok := rc.repo.Suites[run.SuiteID]; ok {
		suiteDone = f.recomputeSuiteLocked(rc.repo, s)
	}
	view := runViewLocked(rc.repo, run)
	rc.repo.mu.Unlock()

	if completed {
		f.emitCheckRun("completed", rc.repo, view, rc.actor())
	}
	if suiteDone {
		f.emitCheckSuite("completed", rc.repo, view.suite, rc.actor())
	}
	writeJSON(w, r, http.StatusOK, f.checkRunObject(rc.repo, view, false))
}

func (f *Forge) listCheckRunAnnotations(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	run, ok := f.checkRunByVar(rc)
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	anns := append([]CheckAnnotation(nil), run.Annotations...)
	sha := run.HeadSHA
	rc.repo.mu.Unlock()
	out := make([]map[string]any, 0, len(anns))
	for _, a := range anns {
		out = append(out, f.annotationObject(rc.repo, sha, a))
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), out))
}

// rerequester admits whoever may ask for a re-run: the App's installation
// and users with write access (the "Re-run" button).
// Served under repoHandler(PermWrite, ...).
func rerequester(h repoHandlerFunc) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		if rc.caller == nil || rc.caller.kind == principalApp {
			writeError(w, http.StatusForbidden, "You must authenticate via a GitHub App.")
			return
		}
		h(w, r, rc)
	}
}

func (f *Forge) rerequestCheckRun(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	id, ok := rc.intVar("id")
	if !ok {
		return
	}
	if err := f.rerequestRun(rc.repo, id, rc.actor()); err != nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusCreated, map[string]any{})
}

// RerequestCheckRun does what a user's "Re-run" does: the check run's
// suite goes back to queued and the App hears check_run "rerequested".
func (f *Forge) RerequestCheckRun(fullName string, id int64, senderLogin string) error {
	repo, err := f.repoNamed(fullName)
	if err != nil {
		return err
	}
	sender, err := f.accountNamed(senderLogin)
	if err != nil {
		return err
	}
	return f.rerequestRun(repo, id, sender)
}

func (f *Forge) rerequestRun(repo *Repo, id int64, sender *Account) error {
	repo.mu.Lock()
	run, ok := repo.CheckRuns[id]
	if !ok {
		repo.mu.Unlock()
		return fmt.Errorf("forge: %s has no check run %d", repo.FullName(), id)
	}
	// The payload shows the run and its suite as they were when asked
	// (GitHub's does); then the suite goes back to queued.
	view := runViewLocked(repo, run)
	if s, ok := repo.Suites[run.SuiteID]; ok {
		s.Status, s.Conclusion, s.UpdatedAt = "queued", "", f.now()
	}
	repo.mu.Unlock()
	f.emitCheckRun("rerequested", repo, view, sender)
	return nil
}

// RerequestCheckSuite does what "Re-run all checks" does: check_suite
// "rerequested".
func (f *Forge) RerequestCheckSuite(fullName string, id int64, senderLogin string) error {
	repo, err := f.repoNamed(fullName)
	if err != nil {
		return err
	}
	sender, err := f.accountNamed(senderLogin)
	if err != nil {
		return err
	}
	return f.rerequestSuite(repo, id, sender)
}

func (f *Forge) rerequestSuite(repo *Repo, id int64, sender *Account) error {
	repo.mu.Lock()
	s, ok := repo.Suites[id]
	if !ok {
		repo.mu.Unlock()
		return fmt.Errorf("forge: %s has no check suite %d", repo.FullName(), id)
	}
	view := suiteViewLocked(repo, s) // as it was when asked, like GitHub's payload
	s.Status, s.Conclusion, s.UpdatedAt = "queued", "", f.now()
	repo.mu.Unlock()
	f.emitCheckSuite("rerequested", repo, view, sender)
	return nil
}

func (f *Forge) rerequestCheckSuite(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	id, ok := rc.intVar("id")
	if !ok {
		return
	}
	if err := f.rerequestSuite(rc.repo, id, rc.actor()); err != nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusCreated, map[string]any{})
}

// createCheckSuiteRequest is the body of POST /check-suites.
type createCheckSuiteRequest struct {
	HeadSHA string `json:"head_sha"`
}

func (f *Forge) createCheckSuite(w http.ResponseWriter, r *http.Request, rc *reqCtx, req createCheckSuiteRequest) {
	sha := strings.ToLower(req.HeadSHA)
	if t, err := f.git.objectType(rc.repo.Path, sha); err != nil || t != "commit" || !sha40Pattern.MatchString(sha) {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+req.HeadSHA)
		return
	}
	rc.repo.mu.Lock()
	s, created := f.ensureSuiteLocked(rc.repo, sha, "", "")
	view := suiteViewLocked(rc.repo, s)
	rc.repo.mu.Unlock()
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, r, status, f.checkSuiteRESTObject(rc.repo, view))
}

// checkSuiteRESTObject is a suite as the REST API shows it (with its
// repository).
func (f *Forge) checkSuiteRESTObject(repo *Repo, v checkSuiteView) map[string]any {
	m := f.checkSuiteObject(repo, v)
	m["repository"] = f.repoObject(repo)
	return m
}

func (f *Forge) suiteByVar(rc *reqCtx) (checkSuiteView, bool) {
	id, ok := rc.intVar("id")
	if !ok {
		return checkSuiteView{}, false
	}
	rc.repo.mu.Lock()
	defer rc.repo.mu.Unlock()
	s, found := rc.repo.Suites[id]
	if !found {
		notFound(rc.w)
		return checkSuiteView{}, false
	}
	return suiteViewLocked(rc.repo, s), true
}

func (f *Forge) getCheckSuite(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	if v, ok := f.suiteByVar(rc); ok {
		writeJSON(w, r, http.StatusOK, f.checkSuiteRESTObject(rc.repo, v))
	}
}

func (f *Forge) listSuiteCheckRuns(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	v, ok := f.suiteByVar(rc)
	if !ok {
		return
	}
	f.answerCheckRuns(w, r, rc.repo, func(run *CheckRun) bool { return run.SuiteID == v.suite.ID })
}

func (f *Forge) listRefCheckRuns(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, ok := f.refCommitFor(rc)
	if !ok {
		return
	}
	f.answerCheckRuns(w, r, rc.repo, func(run *CheckRun) bool { return run.HeadSHA == sha })
}

// answerCheckRuns lists the runs matching keep and the query's filters
// (check_name, status, filter=latest|all, app_id) as {total_count,
// check_runs}, newest first, paginated.
func (f *Forge) answerCheckRuns(w http.ResponseWriter, r *http.Request, repo *Repo, keep func(*CheckRun) bool) {
	q := r.URL.Query()
	name, status, filter := q.Get("check_name"), q.Get("status"), q.Get("filter")
	if filter == "" {
		filter = "latest"
	}
	if filter != "latest" && filter != "all" {
		validationFailed(w, "CheckRun", "filter", "invalid", "filter must be latest or all")
		return
	}
	if status != "" && !checkStatuses[status] {
		validationFailed(w, "CheckRun", "status", "invalid", "status must be queued, in_progress or completed")
		return
	}
	if appID := q.Get("app_id"); appID != "" {
		if app := f.appInfo(); app == nil || appID != strconv.FormatInt(app.ID, 10) {
			writeJSON(w, r, http.StatusOK, map[string]any{"total_count": 0, "check_runs": []any{}})
			return
		}
	}
	repo.mu.Lock()
	var runs []*CheckRun
	for _, run := range repo.CheckRuns {
		if keep(run) && (name == "" || run.Name == name) {
			runs = append(runs, run)
		}
	}
	if filter == "latest" {
		runs = latestRunsLocked(runs)
	} else {
		sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	}
	var views []checkRunView
	for _, run := range runs {
		if status == "" || run.Status == status {
			views = append(views, runViewLocked(repo, run))
		}
	}
	repo.mu.Unlock()
	pageViews := paginate(w, r, f.BaseURL(), views)
	out := make([]map[string]any, 0, len(pageViews))
	for _, v := range pageViews {
		out = append(out, f.checkRunObject(repo, v, false))
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"total_count": len(views), "check_runs": out})
}

func (f *Forge) listRefCheckSuites(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, ok := f.refCommitFor(rc)
	if !ok {
		return
	}
	q := r.URL.Query()
	if appID := q.Get("app_id"); appID != "" {
		if app := f.appInfo(); app == nil || appID != strconv.FormatInt(app.ID, 10) {
			writeJSON(w, r, http.StatusOK, map[string]any{"total_count": 0, "check_suites": []any{}})
			return
		}
	}
	rc.repo.mu.Lock()
	var views []checkSuiteView
	for _, s := range rc.repo.Suites {
		if s.HeadSHA == sha {
			views = append(views, suiteViewLocked(rc.repo, s))
		}
	}
	rc.repo.mu.Unlock()
	sort.Slice(views, func(i, j int) bool { return views[i].suite.ID < views[j].suite.ID })
	pageViews := paginate(w, r, f.BaseURL(), views)
	out := make([]map[string]any, 0, len(pageViews))
	for _, v := range pageViews {
		out = append(out, f.checkSuiteRESTObject(rc.repo, v))
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"total_count": len(views), "check_suites": out})
}
