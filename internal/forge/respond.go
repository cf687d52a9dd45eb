package forge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

const docsURL = "https://docs.github.com/rest"

// apiError is GitHub's error body.
type apiError struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status,omitempty"`
}

// fieldError is one entry of a 422's "errors".
type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

var (
	errAlreadyExists = errors.New("already exists")
	errTooManyHooks  = errors.New("too many hooks")
)

// writeError answers with GitHub's error body.
func writeError(w http.ResponseWriter, status int, msg string, errs ...fieldError) {
	writeRaw(w, status, apiError{Message: msg, Errors: errs, DocumentationURL: docsURL, Status: strconv.Itoa(status)})
}

func notFound(w http.ResponseWriter) { writeError(w, http.StatusNotFound, "Not Found") }

// validationFailed is GitHub's 422.
func validationFailed(w http.ResponseWriter, resource, field, code, msg string) {
	writeError(w, http.StatusUnprocessableEntity, "Validation Failed",
		fieldError{Resource: resource, Field: field, Code: code, Message: msg})
}

func writeRaw(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeJSON answers 200/201 with v. GETs carry an ETag and are answered
// 304 with no body when If-None-Match names it, as GitHub does.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := marshalGitHub(v, forREST)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encode: "+err.Error())
		return
	}
	if r.Method == http.MethodGet && status == http.StatusOK {
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		w.Header().Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// noContent answers 204.
func noContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// decodeBody reads a JSON request body (capped) into v; a bad body is
// answered 400 ("Problems parsing JSON") and false returned.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Problems reading body")
		return false
	}
	if len(data) > maxRequestBody {
		writeError(w, http.StatusRequestEntityTooLarge, "Request body too large")
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true
	}
	if err := json.Unmarshal(data, v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// maxRequestBody caps REST request bodies (blobs are base64 in JSON).
const maxRequestBody = 100 << 20

// page reads per_page (default 30, at most 100) and page (from 1).
func page(r *http.Request) (perPage, pageNum int) {
	perPage, pageNum = 30, 1
	if v, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && v > 0 {
		pageNum = v
	}
	return perPage, pageNum
}

// paginate returns one page of items and sets GitHub's Link header
// (first, prev, next, last) built on the request's own URL.
func paginate[T any](w http.ResponseWriter, r *http.Request, base string, items []T) []T {
	// The request path already starts with /api/v3: accept the API base
	// as well as the forge's root.
	base = strings.TrimSuffix(base, apiPrefix)
	perPage, pageNum := page(r)
	last := (len(items) + perPage - 1) / perPage
	if last == 0 {
		last = 1
	}
	var links []string
	link := func(p int, rel string) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(perPage))
		u.RawQuery = q.Encode()
		links = append(links, fmt.Sprintf(`<%s%s>; rel="%s"`, base, (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).String(), rel))
	}
	if pageNum > 1 {
		link(1, "first")
		link(min(pageNum-1, last), "prev")
	}
	if pageNum < last {
		link(pageNum+1, "next")
		link(last, "last")
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := (pageNum - 1) * perPage
	if start >= len(items) {
		return []T{}
	}
	return items[start:min(start+perPage, len(items))]
}
