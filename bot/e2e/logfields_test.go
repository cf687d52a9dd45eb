package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"
)

// syncBuffer is a log output safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("a log line is not JSON: %s", sc.Text())
			continue
		}
		out = append(out, m)
	}
	return out
}

// TestDeliveryLogFields (#10 §4): with JSON logs, every line of the work
// a webhook delivery sets off — the handler, the lifecycle session, the
// git cache — carries the delivery id and the repository, and the lines
// about one package name it.
func TestDeliveryLogFields(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{}
	log := logrus.New()
	log.SetOutput(out)
	log.SetLevel(logrus.DebugLevel)
	log.SetFormatter(&logrus.JSONFormatter{})
	w := newWorldLogging(t, log)
	w.publishUPFReplicas(2)
	perPackage := map[string]bool{"draft rendered": true, "approval evaluated": true, "published revision": true,
		"no downstream package tracks this package": true}
	seen := map[string]int{}
	for _, m := range out.lines(t) {
		msg, _ := m["msg"].(string)
		if _, ok := m["repository"]; !ok {
			continue // the server's own lines (started, serving)
		}
		seen[msg]++
		if d, _ := m["delivery"].(string); d == "" {
			t.Errorf("a line of work without its delivery: %v", m)
		}
		if p, _ := m["package"].(string); perPackage[msg] && p != "network/upf" {
			t.Errorf("a line about network/upf without its package: %v", m)
		}
	}
	for msg := range perPackage {
		if seen[msg] == 0 {
			t.Errorf("no %q line (seen %v)", msg, seen)
		}
	}
	if seen["git fetch"] == 0 || seen["git push"] == 0 {
		t.Errorf("no git cache lines: %v", seen)
	}
}
