package service

import (
	"io"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/settings"
	"github.com/sirupsen/logrus"
)

// PORCHBOT_SCHEMA_DIR (--schema-dir) reaches the render steps.
func TestRenderOptionsCarrySchemaDir(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	o := renderOptions(&settings.Settings{SchemaDir: "/srv/schemas", RenderConcurrency: 1}, config.ServerLimits{}, log)
	if o.SchemaDir != "/srv/schemas" {
		t.Errorf("SchemaDir %q", o.SchemaDir)
	}
}
