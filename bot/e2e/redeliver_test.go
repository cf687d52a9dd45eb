package e2e

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/demo"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/redeliver"
)

// TestRedelivererRepairsLostWebhooks (#22 §1): the forge loses the
// webhook of a proposal opened and of a /porch comment. One pass of the
// Redeliverer, with the App's JWT, finds them failed in GitHub's record
// of the App's deliveries and has them redelivered (same GUID, signed
// again through the ingress): the proposal gets its label and approval
// check, the comment its answer. A later pass redelivers nothing, and a
// quiet one costs one REST call.
func TestRedelivererRepairsLostWebhooks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	ctx, cancel := context.WithTimeout(w.ctx, 2*time.Minute)
	defer cancel()
	lose := func(do func()) {
		t.Helper()
		w.settle()
		fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
		do()
		if err := fg.WaitDeliveries(ctx); err != nil {
			t.Fatal(err)
		}
		fg.SetFaults(forge.Faults{})
	}

	// A draft, proposed while every webhook is lost.
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "drafts/basens/cpu")
	ns := readFile(t, dir, "basens/namespace.yaml")
	if !strings.Contains(ns, `requests.cpu: "8"`) {
		t.Fatalf("basens/namespace.yaml has no cpu request of 8:\n%s", ns)
	}
	w.write(dir, "basens/namespace.yaml", strings.Replace(ns, `requests.cpu: "8"`, `requests.cpu: "16"`, 1))
	w.git(dir, "commit", "-q", "-am", "Sixteen CPUs")
	w.git(dir, "push", "-q", "origin", "HEAD")
	issue := w.createIssue("alice", repo, "Questions")
	w.settle()
	var pr int
	lose(func() { pr = w.openPull("alice", repo, "drafts/basens/cpu", "Sixteen CPUs").GetNumber() })
	lose(func() { w.comment("alice", repo, issue, "/porch help") })
	w.settle()
	var lost []string
	for _, d := range fg.Deliveries() {
		if d.Dropped {
			lost = append(lost, d.ID)
		}
	}
	if len(lost) == 0 || len(w.labels(repo, pr)) != 0 || len(w.botComments(repo, issue)) != 0 {
		t.Fatalf("before the pass: %d lost, #%d labelled %v, %d answers", len(lost), pr, w.labels(repo, pr),
			len(w.botComments(repo, issue)))
	}

	counter := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "redeliveries"}, []string{"outcome"})
	log := logrus.New()
	log.SetOutput(io.Discard)
	r := redeliver.New(w.svc.Clients.App(ctx).Apps, log, redeliver.Options{Counter: counter})
	rep, err := r.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.settle()
	t.Logf("pass: listed %d in %d pages, redelivered %d, skipped %v", rep.Listed, rep.Pages, len(rep.Redelivered), rep.Skipped)
	for _, guid := range lost {
		if !slices.Contains(rep.Redelivered, guid) {
			t.Errorf("lost delivery %s was not redelivered (%v)", guid, rep.Redelivered)
		}
	}
	// Each lost delivery came again with its GUID, and porchbot took it.
	for _, guid := range lost {
		found := false
		for _, d := range fg.Deliveries() {
			if d.ID == guid && d.Redelivery && d.Status >= 200 && d.Status < 300 {
				found = true
			}
		}
		if !found {
			t.Errorf("no accepted redelivery of %s", guid)
		}
	}
	if labels := w.labels(repo, pr); !contains(labels, packages.LabelProposed) {
		t.Errorf("#%d labels %v after the redelivery", pr, labels)
	}
	if run := w.checkRunMaybe(repo, w.pull(repo, pr).GetHead().GetSHA(), "porchbot/approval"); run == nil {
		t.Errorf("#%d has no approval check after the redelivery", pr)
	}
	if n := len(w.botComments(repo, issue)); n != 1 {
		t.Errorf("/porch help answered %d times after the redelivery, want 1", n)
	}

	// The next pass sees the redeliveries succeeded (and what porchbot's
	// work sent since): nothing to redeliver.
	rep, err = r.Pass(ctx)
	if err != nil || len(rep.Redelivered) != 0 {
		t.Fatalf("second pass: %+v %v", rep, err)
	}
	w.settle()
	// Quiet: one request, revalidated with its ETag: GitHub answers 304
	// and charges nothing (porchbot's own count leaves 304s out).
	before := demo.BotCalls(w.svc.Metrics)
	fgBefore := w.svc.Embedded.Forge.Stats().Snapshot()
	rep, err = r.Pass(ctx)
	if err != nil || rep.Listed != 0 || len(rep.Redelivered) != 0 {
		t.Fatalf("quiet pass: %+v %v", rep, err)
	}
	made := map[string]int64{}
	for call, n := range demo.BotCalls(w.svc.Metrics) {
		if n -= before[call]; n != 0 {
			made[call] = n
		}
	}
	asked := forge.StatsDelta(fgBefore, w.svc.Embedded.Forge.Stats().Snapshot())
	if len(made) != 0 || asked["GET /app/hook/deliveries"] != 1 || asked["GET /app/hook/deliveries 304"] != 1 {
		t.Errorf("a quiet pass: charged calls %v, requests %v; want one GET /app/hook/deliveries answered 304", made, asked)
	}

	// A redelivery is a webhook like any other: signed with the secret
	// GitHub holds now and checked by the ingress. With the wrong one, the
	// comment and its redelivery are refused (401) and run nothing; with
	// the right one back, the next pass redelivers it again.
	emb := w.svc.Embedded
	fg.SetWebhook(w.svc.HookURL, []byte("not-the-secret"))
	other := w.createIssue("alice", repo, "More questions")
	w.comment("alice", repo, other, "/porch help")
	w.quiesce()
	if rep, err = r.Pass(ctx); err != nil || len(rep.Redelivered) == 0 {
		t.Fatalf("pass with the wrong secret: %+v %v", rep, err)
	}
	w.quiesce()
	refused := 0
	for _, d := range fg.Deliveries() {
		if d.Redelivery && slices.Contains(rep.Redelivered, d.ID) && d.Status == http.StatusUnauthorized {
			refused++
		}
	}
	if refused != len(rep.Redelivered) || len(w.botComments(repo, other)) != 0 {
		t.Fatalf("with the wrong secret: %d of %d redeliveries refused, %d answers", refused, len(rep.Redelivered),
			len(w.botComments(repo, other)))
	}
	fg.SetWebhook(w.svc.HookURL, emb.WebhookSecret)
	if rep, err = r.Pass(ctx); err != nil || len(rep.Redelivered) == 0 {
		t.Fatalf("pass with the secret back: %+v %v", rep, err)
	}
	w.quiesce()
	if n := len(w.botComments(repo, other)); n != 1 {
		t.Errorf("/porch help answered %d times once signed right, want 1", n)
	}
}
