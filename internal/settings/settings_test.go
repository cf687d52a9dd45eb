package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaultsAreEmbedded(t *testing.T) {
	s, err := Parse(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	// The embedded mode listens on loopback, as its forge does (#26).
	if !s.Embedded() || s.Listen != EmbeddedListen || s.ForgeListen != "127.0.0.1:3000" || s.MaxBodyBytes != 25<<20 ||
		s.MutationSpacing != 800*time.Millisecond || s.QueueSize != 1024 {
		t.Fatalf("unexpected defaults: %+v", s)
	}
	for _, given := range []struct {
		args []string
		env  map[string]string
	}{{args: []string{"--listen", ":8080"}}, {env: map[string]string{"PORCHBOT_LISTEN": ":8080"}}} {
		if s, err := Parse(given.args, env(given.env)); err != nil || s.Listen != ":8080" {
			t.Fatalf("embedded with the address given (%v %v): %q %v", given.args, given.env, s.Listen, err)
		}
	}
}

func TestFlagsWinOverEnvironment(t *testing.T) {
	s, err := Parse([]string{"--listen", ":9000"}, env(map[string]string{"PORCHBOT_LISTEN": ":7000", "PORCHBOT_LOG_LEVEL": "debug"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Listen != ":9000" || s.LogLevel != "debug" {
		t.Fatalf("got listen %q level %q", s.Listen, s.LogLevel)
	}
}

func TestAppCredentials(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(key, []byte("PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(nil, env(map[string]string{"PORCHBOT_APP_ID": "12", "PORCHBOT_PRIVATE_KEY_PATH": key,
		"PORCHBOT_WEBHOOK_SECRET": "s3cret", "PORCHBOT_GITHUB_URL": "https://ghe.example.com"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Embedded() || s.AppID != 12 || string(s.PrivateKeyPEM) != "PEM" || string(s.WebhookSecret) != "s3cret" {
		t.Fatalf("unexpected: %+v", s)
	}
}

func TestErrorsAreReportedTogether(t *testing.T) {
	_, err := Parse([]string{"--queue-size", "0", "--log-format", "xml"}, env(map[string]string{"PORCHBOT_APP_ID": "abc"}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"queue-size", "log-format", "PORCHBOT_APP_ID", "PORCHBOT_WEBHOOK_SECRET"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestUnknownFlag(t *testing.T) {
	if _, err := Parse([]string{"--nope"}, env(nil)); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("want unknown flag error, got %v", err)
	}
}

func TestUsageNamesEveryOption(t *testing.T) {
	u := Usage()
	for _, o := range Options {
		if !strings.Contains(u, o.Env) {
			t.Errorf("usage misses %s", o.Env)
		}
	}
}

// TestReadmeDocumentsEverySetting keeps the README's table true.
func TestReadmeDocumentsEverySetting(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Options {
		if !strings.Contains(string(readme), "`"+o.Env+"`") {
			t.Errorf("README.md does not document %s", o.Env)
		}
		if o.Flag != "" && !strings.Contains(string(readme), "`--"+o.Flag+"`") {
			t.Errorf("README.md does not document --%s", o.Flag)
		}
	}
}

// TestErrorsNameWhatWasGiven: a bad value is named as the user gave it —
// the flag when it was on the command line, the environment variable when
// it came from there — and no message repeats the command's name.
func TestErrorsNameWhatWasGiven(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	key := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(key, []byte("PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args        []string
		env         map[string]string
		want, never string
	}{
		{args: []string{"--queue-size", "0"}, want: "--queue-size: ", never: "PORCHBOT_QUEUE_SIZE"},
		{env: map[string]string{"PORCHBOT_QUEUE_SIZE": "0"}, want: "PORCHBOT_QUEUE_SIZE: ", never: "--queue-size"},
		{args: []string{"--app-id", "x"}, want: "--app-id: ", never: "PORCHBOT_APP_ID:"},
		{env: map[string]string{"PORCHBOT_APP_ID": "x"}, want: "PORCHBOT_APP_ID: ", never: "--app-id:"},
		{args: []string{"--app-id", "1", "--private-key-path", missing}, env: map[string]string{"PORCHBOT_WEBHOOK_SECRET": "s"},
			want: "--private-key-path: open " + missing, never: "PORCHBOT_PRIVATE_KEY_PATH"},
		{env: map[string]string{"PORCHBOT_APP_ID": "1", "PORCHBOT_PRIVATE_KEY_PATH": missing, "PORCHBOT_WEBHOOK_SECRET": "s"},
			want: "PORCHBOT_PRIVATE_KEY_PATH: open " + missing, never: "--private-key-path"},
		{args: []string{"--private-key-path", key}, env: map[string]string{"PORCHBOT_WEBHOOK_SECRET": "s"},
			want: "--private-key-path is given but no App id is", never: "PORCHBOT_PRIVATE_KEY_PATH"},
		{args: []string{"--forbid-automerge=maybe"}, want: "--forbid-automerge: ", never: "PORCHBOT_FORBID_AUTOMERGE"},
		{args: []string{"--nope"}, want: "-nope", never: "serve:"},
	} {
		_, err := Parse(c.args, env(c.env))
		if err == nil {
			t.Errorf("%v %v: no error", c.args, c.env)
			continue
		}
		msg := err.Error()
		// A key file that cannot be read was given: nothing may claim otherwise.
		keyClaim := strings.Contains(msg, missing) && strings.Contains(msg, "no private key")
		if !strings.Contains(msg, c.want) || strings.Contains(msg, c.never) || strings.Contains(msg, "serve settings") || keyClaim {
			t.Errorf("%v %v: error %q, want %q and no %q", c.args, c.env, msg, c.want, c.never)
		}
	}
}

// TestBooleanFlagsStandAlone: --forbid-automerge alone means true, as
// serve -h shows it.
func TestBooleanFlagsStandAlone(t *testing.T) {
	s, err := Parse([]string{"--forbid-automerge", "--forbid-self-approval"}, env(nil))
	if err != nil || !s.ForbidAutomerge || !s.ForbidSelfApproval {
		t.Fatalf("%+v %v", s, err)
	}
}

// The schema validators' directory comes from --schema-dir or
// PORCHBOT_SCHEMA_DIR; none by default.
func TestSchemaDir(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, ""},
		{nil, map[string]string{"PORCHBOT_SCHEMA_DIR": "/srv/schemas"}, "/srv/schemas"},
		{[]string{"--schema-dir", "/opt/s"}, map[string]string{"PORCHBOT_SCHEMA_DIR": "/srv/schemas"}, "/opt/s"},
	} {
		s, err := Parse(c.args, env(c.env))
		if err != nil {
			t.Errorf("Parse(%v, %v): %v", c.args, c.env, err)
			continue
		}
		if s.SchemaDir != c.want {
			t.Errorf("Parse(%v, %v): SchemaDir %q, want %q", c.args, c.env, s.SchemaDir, c.want)
		}
	}
}
