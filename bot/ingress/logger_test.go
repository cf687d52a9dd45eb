package ingress

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
)

func TestLoggerFromCarriesEventFields(t *testing.T) {
	var out bytes.Buffer
	log := logrus.New()
	log.Out = &out
	ev := &Event{Name: "push", Action: "a", DeliveryID: "d-7", InstallationID: 42, Repo: "o/r"}
	ctx := contextWithEventLog(context.Background(), &eventLog{log: log, ev: ev})
	LoggerFrom(ctx).Info("hello")
	for _, field := range []string{"delivery=d-7", "event=push", "installation=42", "repository=o/r", "action=a"} {
		if !strings.Contains(out.String(), field) {
			t.Errorf("log line %q lacks %s", out.String(), field)
		}
	}
	if LoggerFrom(context.Background()) == nil {
		t.Error("LoggerFrom without an event logger returned nil")
	}
}
