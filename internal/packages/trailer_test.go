package packages

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// porchAnnotation mirrors the field names, order and omitempty of Porch's
// gitAnnotation (nephio-project/porch pkg/git/annotation.go), whose Task is
// the API's Task object.
type porchAnnotation struct {
	PackagePath   string     `json:"package,omitempty"`
	WorkspaceName string     `json:"workspaceName,omitempty"`
	Revision      string     `json:"revision,omitempty"`
	Task          *porchTask `json:"task,omitempty"`
}

type porchTask struct {
	Type string `json:"type"`
	Init *struct {
		Description string   `json:"description,omitempty"`
		Keywords    []string `json:"keywords,omitempty"`
	} `json:"init,omitempty"`
}

func TestTrailerString(t *testing.T) {
	tests := []struct {
		t    Trailer
		want string
	}{
		{Trailer{Package: "network/upf", WorkspaceName: "ws1", Revision: "1", Task: &Task{Type: TaskInit}},
			`kpt:{"package":"network/upf","workspaceName":"ws1","revision":"1","task":{"type":"init"}}`},
		{Trailer{Package: "upf", WorkspaceName: "ws", Task: &Task{Type: TaskInit, Spec: json.RawMessage(`{ "description": "a <b>" }`)}},
			`kpt:{"package":"upf","workspaceName":"ws","task":{"type":"init","init":{"description":"a \u003cb\u003e"}}}`},
		{Trailer{Package: "upf", WorkspaceName: "ws", Revision: "2"},
			`kpt:{"package":"upf","workspaceName":"ws","revision":"2"}`},
		{Trailer{}, `kpt:{}`},
		{Trailer{Package: "upf", Task: &Task{Type: TaskRender, Spec: json.RawMessage(`{bad`)}},
			`kpt:{"package":"upf","task":{"type":"render"}}`},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("String() =\n%s\nwant\n%s", got, tt.want)
		}
	}
}

// TestTrailerMatchesPorch checks the rendering byte for byte against
// encoding/json of Porch's annotation shape, and that Porch's shape reads
// what porchbot writes.
func TestTrailerMatchesPorch(t *testing.T) {
	tr := Trailer{Package: "a/b", WorkspaceName: "w", Revision: "3",
		Task: &Task{Type: TaskInit, Spec: json.RawMessage(`{"description":"x & y","keywords":["k"]}`)}}
	pa := porchAnnotation{PackagePath: "a/b", WorkspaceName: "w", Revision: "3", Task: &porchTask{Type: "init"}}
	pa.Task.Init = &struct {
		Description string   `json:"description,omitempty"`
		Keywords    []string `json:"keywords,omitempty"`
	}{"x & y", []string{"k"}}
	b, err := json.Marshal(pa)
	if err != nil {
		t.Fatal(err)
	}
	if want := "kpt:" + string(b); tr.String() != want {
		t.Errorf("porchbot writes\n%s\nPorch writes\n%s", tr.String(), want)
	}
	var back porchAnnotation
	if err := json.Unmarshal([]byte(strings.TrimPrefix(tr.String(), "kpt:")), &back); err != nil {
		t.Fatalf("Porch cannot read porchbot's trailer: %v", err)
	}
	if !reflect.DeepEqual(back, pa) {
		t.Errorf("Porch reads %+v, want %+v", back, pa)
	}
}

func TestAppendAndParseTrailers(t *testing.T) {
	tr := Trailer{Package: "upf", WorkspaceName: "ws", Revision: "0", Task: &Task{Type: TaskEdit}}
	msg := AppendTrailer("Render upf\n\n", tr)
	if want := "Render upf\n\n" + `kpt:{"package":"upf","workspaceName":"ws","revision":"0","task":{"type":"edit"}}` + "\n"; msg != want {
		t.Errorf("AppendTrailer = %q, want %q", msg, want)
	}
	got, err := ParseTrailers(msg)
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], tr) {
		t.Errorf("ParseTrailers = %+v, %v", got, err)
	}
}

func TestParsePorchCommitMessages(t *testing.T) {
	// As Porch writes them: "Intermediate commit: init\n" + "\n\nkpt:{…}\n",
	// and an approve commit with an older "v1" revision.
	msg := "Intermediate commit: init\n\n\nkpt:{\"package\":\"basens\",\"workspaceName\":\"v1\",\"revision\":\"0\",\"task\":{\"type\":\"init\",\"init\":{\"description\":\"sample description\"}}}\n"
	tr, ok := FindTrailer(msg)
	if !ok || tr.Package != "basens" || tr.WorkspaceName != "v1" || tr.Revision != "0" || tr.Task == nil || tr.Task.Type != TaskInit ||
		string(tr.Task.Spec) != `{"description":"sample description"}` {
		t.Fatalf("FindTrailer = %+v %v", tr, ok)
	}
	if _, ok := tr.RevisionNumber(); ok {
		t.Error("revision 0 is a draft, not a number")
	}
	// Re-rendering gives Porch's line back.
	if want := strings.Split(msg, "\n")[3]; tr.String() != want {
		t.Errorf("re-rendered %s, want %s", tr.String(), want)
	}

	approve := "Approve basens/1\n\nkpt:{\"package\":\"basens\",\"workspaceName\":\"ws\",\"revision\":\"v1\"}\n"
	tr, ok = FindTrailer(approve)
	if n, nok := tr.RevisionNumber(); !ok || !nok || n != 1 {
		t.Errorf("approve trailer %+v: revision %d %v", tr, n, nok)
	}
}

func TestParseTrailersErrorsAndForms(t *testing.T) {
	msg := strings.Join([]string{
		"subject",
		"",
		"  kpt:{\"package\":\"a\",\"task\":\"render\"}  ", // bare string task, indented
		"kpt: not json",
		"not kpt: {}",
		"kpt:{\"package\":\"b\",\"task\":{\"type\":\"clone\",\"clone\":null}}",
	}, "\n")
	got, err := ParseTrailers(msg)
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("error = %v, want one about line 4", err)
	}
	want := []Trailer{{Package: "a", Task: &Task{Type: TaskRender}}, {Package: "b", Task: &Task{Type: TaskClone}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseTrailers = %+v, want %+v", got, want)
	}
	if tr, ok := FindTrailer(msg); !ok || tr.Package != "b" {
		t.Errorf("FindTrailer = %+v %v, want the last one", tr, ok)
	}
	if _, ok := FindTrailer("no trailer here"); ok {
		t.Error("FindTrailer found a trailer in a plain message")
	}
}

func TestRevisionNumber(t *testing.T) {
	for rev, want := range map[string]int{"1": 1, "v2": 2, "10": 10, "": 0, "0": 0, "-1": 0, "01": 0, "x": 0} {
		got, ok := Trailer{Revision: rev}.RevisionNumber()
		if got != want || ok != (want > 0) {
			t.Errorf("RevisionNumber(%q) = %d %v, want %d", rev, got, ok, want)
		}
	}
}
