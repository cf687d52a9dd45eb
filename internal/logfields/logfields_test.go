package logfields

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
)

func TestWithMergesAndApplyAdds(t *testing.T) {
	ctx := With(context.Background(), logrus.Fields{"delivery": "d-1", "x": 1})
	ctx = With(ctx, logrus.Fields{"x": 2})
	var out bytes.Buffer
	log := logrus.New()
	log.SetOutput(&out)
	log.SetFormatter(&logrus.JSONFormatter{})
	Apply(ctx, log).Info("work")
	if s := out.String(); !strings.Contains(s, `"delivery":"d-1"`) || !strings.Contains(s, `"x":2`) {
		t.Fatalf("line %s", s)
	}
	if Apply(context.Background(), log) != logrus.FieldLogger(log) {
		t.Fatal("no fields: not the logger itself")
	}
}
