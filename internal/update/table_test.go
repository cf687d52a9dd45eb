package update

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, nil); err != nil || b.Len() != 0 {
		t.Fatalf("no conflicts: %q, %v", b.String(), err)
	}
	cs := []Conflict{
		{File: "deployment.yaml", Resource: "apps/v1 Deployment web", Field: "spec.replicas", Local: "3", Upstream: "5", Taken: SideUpstream},
		{File: "db/statefulset.yaml", Resource: "apps/v1 StatefulSet db", Field: "spec.template.spec.containers[name=db].image", Local: "", Upstream: "postgres:16\tx", Taken: SideLocal},
	}
	if err := WriteTable(&b, cs); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"FILE                 RESOURCE                FIELD                                         LOCAL      UPSTREAM       TAKEN\n" +
		"deployment.yaml      apps/v1 Deployment web  spec.replicas                                 3          5              upstream\n" +
		"db/statefulset.yaml  apps/v1 StatefulSet db  spec.template.spec.containers[name=db].image  (removed)  postgres:16 x  local\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteTableCutsLongValues(t *testing.T) {
	var b bytes.Buffer
	long := strings.Repeat("x", 500)
	if err := WriteTable(&b, []Conflict{{File: "a.yaml", Field: "data.k", Local: long, Upstream: "y", Taken: SideUpstream}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), long[:tableCellMax]) || !strings.Contains(b.String(), "…") {
		t.Errorf("long value not cut:\n%s", b.String())
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, nil); err != nil || strings.TrimSpace(b.String()) != "[]" {
		t.Fatalf("no conflicts: %q, %v", b.String(), err)
	}
	b.Reset()
	in := []Conflict{{File: "a.yaml", Resource: "v1 ConfigMap c", Field: "data.k", Local: "1", Upstream: "2", Taken: SideLocal}}
	if err := WriteJSON(&b, in); err != nil {
		t.Fatal(err)
	}
	var out []Conflict
	if err := json.Unmarshal(b.Bytes(), &out); err != nil || len(out) != 1 || out[0] != in[0] {
		t.Fatalf("round trip: %+v, %v\n%s", out, err, b.String())
	}
}
