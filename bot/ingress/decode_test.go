package ingress

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

func TestDecodeLegacyTimestamps(t *testing.T) {
	raw := []byte(`{"action":"rerequested","check_run":{"id":9007199254740993,` +
		`"app":{"id":2,"name":"Super Duper","created_at":"2018-04-25 20:42:10"},` +
		`"output":{"title":"<b>&</b>"}}}`)
	payload, err := decodePayload("check_run", raw)
	if err != nil {
		t.Fatalf("decodePayload: %v", err)
	}
	run := payload.(*github.CheckRunEvent).GetCheckRun()
	if run.GetID() != 9007199254740993 {
		t.Errorf("id = %d: a number lost precision", run.GetID())
	}
	if want := time.Date(2018, 4, 25, 20, 42, 10, 0, time.UTC); !run.GetApp().GetCreatedAt().Time.Equal(want) {
		t.Errorf("created_at = %v, want %v", run.GetApp().GetCreatedAt(), want)
	}
	if run.GetOutput().GetTitle() != "<b>&</b>" {
		t.Errorf("title = %q", run.GetOutput().GetTitle())
	}
}

func TestDecodeReportsOtherErrors(t *testing.T) {
	for _, raw := range []string{
		`{"check_run":{"app":{"created_at":"yesterday"}}}`,
		`{"check_run":{"id":"not a number"}}`,
	} {
		if _, err := decodePayload("check_run", []byte(raw)); err == nil {
			t.Errorf("decodePayload(%s) succeeded", raw)
		}
	}
}

func TestEventDecode(t *testing.T) {
	ev := &Event{Name: "push", Raw: pushPayload("o/r", 3)}
	first, err := ev.Decode()
	if err != nil {
		t.Fatal(err)
	}
	ev.Raw = nil // decoded once: Raw is no longer needed
	again, err := ev.Decode()
	if err != nil || again != first || ev.Payload != first {
		t.Errorf("second Decode = %p, %v; want the first payload %p", again, err, first)
	}

	bad := &Event{Name: "push", Raw: []byte(`{"after":3}`)}
	if _, err := bad.Decode(); err == nil || bad.Payload != nil {
		t.Errorf("Decode of a bad payload = %v, Payload %v", err, bad.Payload)
	}

	preset := &github.PushEvent{}
	if got, err := (&Event{Name: "push", Payload: preset}).Decode(); err != nil || got != preset {
		t.Errorf("Decode with Payload set = %v, %v", got, err)
	}
}

func TestDecodeAfterHandlerReturned(t *testing.T) {
	kept := make(chan *Event, 1)
	ts := newTestServer(t, Options{Handlers: Handlers{"push": HandlerFunc(func(_ context.Context, ev *Event) error {
		kept <- ev // keeps the event without decoding it
		return nil
	})}}, true)
	if a := (delivery{event: "push", id: "d", body: pushPayload("o/r", 1)}).do(t, ts.url); a.status != 202 {
		t.Fatalf("status %d", a.status)
	}
	shutdown(t, ts.Server) // the handler has returned
	ev := <-kept
	if ev.Raw != nil {
		t.Error("Raw still set after the handler returned")
	}
	if _, err := ev.Decode(); !errors.Is(err, ErrEventReleased) {
		t.Errorf("Decode after the handler returned = %v, want ErrEventReleased", err)
	}
}
