package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestFunctionImages(t *testing.T) {
	s, err := Parse([]string{"--function-images", "ghcr.io/acme/fns/*:v1.*, localhost:5000/fn"}, env(map[string]string{"PORCHBOT_DATA_DIR": "/var/lib/porchbot"}))
	if err != nil {
		t.Fatal(err)
	}
	p := s.FunctionImagePuller()
	if p == nil || len(p.Allow) != 2 || p.Cache != filepath.Join("/var/lib/porchbot", "function-images") ||
		!p.Allows("ghcr.io/acme/fns/validate:v1.2") || p.Allows("ghcr.io/other/fn:v1") {
		t.Errorf("puller %+v", p)
	}
	if s, _ := Parse(nil, env(nil)); s.FunctionImagePuller() != nil {
		t.Error("a puller with nothing allowed")
	}
	_, err = Parse(nil, env(map[string]string{"PORCHBOT_FUNCTION_IMAGES": "acme/fn"}))
	if err == nil || !strings.Contains(err.Error(), "PORCHBOT_FUNCTION_IMAGES") || !strings.Contains(err.Error(), "registry host first") {
		t.Errorf("a bad entry: %v", err)
	}
}
