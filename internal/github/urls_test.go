package github

import "testing"

func TestParseBaseURL(t *testing.T) {
	dotCom := URLs{API: "https://api.github.com/", Uploads: "https://uploads.github.com/", Web: "https://github.com/"}
	forge := URLs{API: "http://127.0.0.1:8080/api/v3/", Uploads: "http://127.0.0.1:8080/api/uploads/", Web: "http://127.0.0.1:8080/", Enterprise: true}
	for _, tc := range []struct {
		in   string
		want URLs
	}{
		{"", dotCom},
		{"https://github.com", dotCom},
		{"https://github.com/", dotCom},
		{"https://api.github.com", dotCom},
		{"https://api.github.com/", dotCom},
		{"https://GitHub.com", dotCom},
		{"https://ghe.example.com", URLs{API: "https://ghe.example.com/api/v3/", Uploads: "https://ghe.example.com/api/uploads/", Web: "https://ghe.example.com/", Enterprise: true}},
		{"https://ghe.example.com/api/v3", URLs{API: "https://ghe.example.com/api/v3/", Uploads: "https://ghe.example.com/api/uploads/", Web: "https://ghe.example.com/", Enterprise: true}},
		{"https://ghe.example.com/api/v3/", URLs{API: "https://ghe.example.com/api/v3/", Uploads: "https://ghe.example.com/api/uploads/", Web: "https://ghe.example.com/", Enterprise: true}},
		{"http://127.0.0.1:8080", forge},
		{"http://127.0.0.1:8080/", forge},
		{"http://127.0.0.1:8080/api/v3/", forge},
		{"https://example.com/github", URLs{API: "https://example.com/github/api/v3/", Uploads: "https://example.com/github/api/uploads/", Web: "https://example.com/github/", Enterprise: true}},
	} {
		got, err := ParseBaseURL(tc.in)
		if err != nil {
			t.Errorf("ParseBaseURL(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseBaseURL(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"ftp://ghe.example.com", "ghe.example.com", "https://", "https://u:p@ghe.example.com", "https://ghe.example.com/?x=1", "://"} {
		if _, err := ParseBaseURL(bad); err == nil {
			t.Errorf("ParseBaseURL(%q) succeeded, want an error", bad)
		}
	}
}

func TestURLsHelpers(t *testing.T) {
	u, _ := ParseBaseURL("http://127.0.0.1:8080/api/v3")
	if got := u.APIBase(); got != "http://127.0.0.1:8080/api/v3" {
		t.Errorf("APIBase = %q", got)
	}
	if got := u.GitURL("acme", "widgets"); got != "http://127.0.0.1:8080/acme/widgets.git" {
		t.Errorf("GitURL = %q", got)
	}
	d, _ := ParseBaseURL("")
	if got := d.APIBase(); got != "https://api.github.com" {
		t.Errorf("github.com APIBase = %q", got)
	}
	if got := d.GitURL("acme", "widgets"); got != "https://github.com/acme/widgets.git" {
		t.Errorf("github.com GitURL = %q", got)
	}
}
