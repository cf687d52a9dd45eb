package ingress

import (
	"context"
	"runtime"
	"testing"
)

func TestNewServerOptions(t *testing.T) {
	noop := HandlerFunc(func(context.Context, *Event) error { return nil })
	tests := []struct {
		name    string
		opts    Options
		wantErr bool
	}{
		{"no secret", Options{}, true},
		{"empty secret", Options{WebhookSecret: []byte{}}, true},
		{"defaults", Options{WebhookSecret: testSecret}, false},
		{"nil handler", Options{WebhookSecret: testSecret, Handlers: Handlers{"push": nil}}, true},
		{"event go-github cannot decode", Options{WebhookSecret: testSecret, Handlers: Handlers{"pushh": noop}}, true},
		{"ping handler", Options{WebhookSecret: testSecret, Handlers: Handlers{"ping": noop}}, true},
		{"no handlers", Options{WebhookSecret: testSecret, Handlers: Handlers{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewServer(tt.opts)
			if (err != nil) != tt.wantErr {
				t.Errorf("NewServer error = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	s, err := NewServer(Options{WebhookSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	o := s.opts
	if o.MaxBodyBytes != 25<<20 || o.QueueSize != 1024 || o.DedupeSize != 10000 {
		t.Errorf("MaxBodyBytes %d, QueueSize %d, DedupeSize %d", o.MaxBodyBytes, o.QueueSize, o.DedupeSize)
	}
	if want := max(4, 2*runtime.GOMAXPROCS(0)); o.Workers != want {
		t.Errorf("Workers = %d, want %d", o.Workers, want)
	}
	if len(o.Handlers) != 0 {
		t.Errorf("%d handlers, want none (bot.NewServer gives the defaults)", len(o.Handlers))
	}
	if o.Metrics == nil || o.Logger == nil || o.Key == nil {
		t.Error("Metrics, Logger or Key not defaulted")
	}
}

func TestRepositoryKey(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Repo: "o/r", InstallationID: 1, DeliveryID: "d"}, "o/r"},
		{Event{InstallationID: 7, DeliveryID: "d"}, "installation/7"},
		{Event{DeliveryID: "d"}, "delivery/d"},
	}
	for _, tt := range tests {
		if got := RepositoryKey(&tt.ev); got != tt.want {
			t.Errorf("RepositoryKey(%+v) = %q, want %q", tt.ev, got, tt.want)
		}
	}
}

func TestCustomKeyFunc(t *testing.T) {
	var keys []string
	key := func(ev *Event) string {
		k := ev.Repo + "#" + ev.Action
		keys = append(keys, k) // runs at ingress, one delivery at a time here
		return k
	}
	ts := newTestServer(t, Options{Key: key, Handlers: Handlers{"push": newRecorder(1)}}, true)
	body := []byte(`{"action":"pkg-a","repository":{"full_name":"o/r"}}`)
	if a := (delivery{event: "push", id: "d", body: body}).do(t, ts.url); a.status != 202 {
		t.Fatalf("status %d", a.status)
	}
	shutdown(t, ts.Server)
	if len(keys) != 1 || keys[0] != "o/r#pkg-a" {
		t.Errorf("keys = %v", keys)
	}
}
