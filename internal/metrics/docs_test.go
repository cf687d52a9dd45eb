package metrics_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/porchbot/porchbot/internal/metrics"
)

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// TestOperationsDocListsEveryMetric: docs/operations.md names every metric
// porchbot registers, so a new metric without documentation fails.
func TestOperationsDocListsEveryMetric(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc)
	go func() {
		metrics.New().Registry.Describe(ch)
		close(ch)
	}()
	n := 0
	for d := range ch {
		m := fqName.FindStringSubmatch(d.String())
		if m == nil || !strings.HasPrefix(m[1], metrics.Namespace+"_") {
			continue
		}
		n++
		if !strings.Contains(string(doc), "`"+m[1]+"`") {
			t.Errorf("docs/operations.md does not list %s", m[1])
		}
	}
	if n == 0 {
		t.Fatal("no porchbot metric found: the test reads nothing")
	}
}
