package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/settings"
)

// fleet is several porchbot replicas sharing one forge, as `porchbot serve`
// runs them against one GitHub App: the world's replica (which started the
// embedded forge) and more started with the App's credentials. The forge
// delivers every webhook to a sink; settle hands each delivery to every
// replica, signed as the forge signs it, each replica in its own order,
// all replicas at once.
type fleet struct {
	w        *world
	replicas []*service.Service
	// orders give each replica's order of a batch of deliveries.
	orders []func([]forge.Delivery) []forge.Delivery
	secret []byte
	sent   int
	client *http.Client
}

func newFleet(t *testing.T, w *world, extra int) *fleet {
	t.Helper()
	emb := w.svc.Embedded
	sink := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rw.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(sink.Close)
	emb.Forge.SetWebhook(sink.URL, emb.WebhookSecret)

	f := &fleet{w: w, replicas: []*service.Service{w.svc}, secret: emb.WebhookSecret,
		client: &http.Client{Timeout: 30 * time.Second},
		orders: []func([]forge.Delivery) []forge.Delivery{func(ds []forge.Delivery) []forge.Delivery { return ds }}}
	for i := 0; i < extra; i++ {
		f.replicas = append(f.replicas, startReplica(t, w, "replica-"+string(rune('b'+i))))
	}
	rnd := rand.New(rand.NewSource(7))
	for i := 1; i < len(f.replicas); i++ {
		if i%2 == 1 {
			f.orders = append(f.orders, func(ds []forge.Delivery) []forge.Delivery {
				out := slices.Clone(ds)
				slices.Reverse(out)
				return out
			})
			continue
		}
		f.orders = append(f.orders, func(ds []forge.Delivery) []forge.Delivery {
			out := slices.Clone(ds)
			rnd.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
			return out
		})
	}
	return f
}

// startReplica starts one more `porchbot serve` against the world's forge
// as its GitHub App (credentials given as serve takes them: flags and the
// environment).
func startReplica(t testing.TB, w *world, name string) *service.Service {
	t.Helper()
	emb := w.svc.Embedded
	env := map[string]string{"PORCHBOT_PRIVATE_KEY": string(emb.PrivateKeyPEM), "PORCHBOT_WEBHOOK_SECRET": string(emb.WebhookSecret)}
	s, err := settings.Parse([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--resync-interval", "0",
		"--mutation-spacing", "0", "--onboarding", "off", "--app-id", strconv.FormatInt(emb.AppID, 10), "--github-url", emb.Forge.BaseURL()},
		func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if s.Embedded() {
		t.Fatal("a replica with App credentials must not start a forge")
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	if os.Getenv("E2E_LOG") != "" {
		log.SetOutput(os.Stderr)
		log.SetLevel(logrus.DebugLevel)
		log.AddHook(replicaField(name))
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := service.Start(ctx, s, log, io.Discard, "e2e-"+name)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = svc.Close(context.Background())
		cancel()
	})
	return svc
}

// replicaField names the replica in its log lines.
type replicaField string

func (replicaField) Levels() []logrus.Level { return logrus.AllLevels }
func (r replicaField) Fire(e *logrus.Entry) error {
	e.Data["replica"] = string(r)
	return nil
}

// settle hands every new delivery to every replica until the forge emits
// nothing more: each round takes the deliveries made since the last one,
// posts them to all replicas concurrently (each in its order) and waits
// until every replica has handled them.
func (f *fleet) settle() {
	t := f.w.t
	t.Helper()
	ctx, cancel := context.WithTimeout(f.w.ctx, 2*time.Minute)
	defer cancel()
	fg := f.w.svc.Embedded.Forge
	for round := 0; round < 100; round++ {
		if err := fg.WaitDeliveries(ctx); err != nil {
			t.Fatal(err)
		}
		all := fg.Deliveries()
		batch := all[f.sent:]
		f.sent = len(all)
		if len(batch) == 0 {
			return
		}
		var wg sync.WaitGroup
		errs := make([]error, len(f.replicas))
		for i, r := range f.replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, d := range f.orders[i](batch) {
					if err := f.post(ctx, r.HookURL, d); err != nil {
						errs[i] = fmt.Errorf("replica %d: %w", i, err)
						return
					}
				}
				if err := r.Bot.WaitIdle(ctx); err != nil {
					errs[i] = err
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Fatal("the replicas and the forge never settled")
}

// post delivers d to a replica as GitHub would: same event, delivery id and
// payload, signed with the App's webhook secret.
func (f *fleet) post(ctx context.Context, url string, d forge.Delivery) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(d.Payload))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, f.secret)
	mac.Write(d.Payload)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", d.Event)
	req.Header.Set("X-GitHub-Delivery", d.ID)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("delivery %s (%s): %d %s", d.ID, d.Event, resp.StatusCode, body)
	}
	return nil
}

// TestReplicasPublishOnce: three replicas receive every webhook, each in
// its own order, all at once. Two proposals of network/upf merged one after
// the other, and a third whose merge pulled in the others' changes, make
// exactly one tag per published landing, revisions without gaps in history
// order, one release per tag, one refusal comment and one draft of the
// refused merge.
func TestReplicasPublishOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	const pkg = "network/upf"
	seed := w.firstCommit(repo)
	w.publishFound(repo, seed, pkg)
	fl := newFleet(t, w, 2)

	// A draft that will land after the others, branched from the seed: it
	// only touches the service, so its merge combines it with the
	// deployment changes landed meanwhile.
	late := w.clone("alice", repo)
	w.git(late, "switch", "-q", "-c", "drafts/network/upf/pfcp")
	w.write(late, "network/upf/service.yaml", strings.Replace(readFile(t, late, "network/upf/service.yaml"), "port: 8805", "port: 8806", 1))
	w.git(late, "commit", "-q", "-am", "Move PFCP to 8806")
	w.git(late, "push", "-q", "origin", "HEAD")

	// The first proposal, with every replica handling its events.
	one := w.clone("alice", repo)
	w.git(one, "switch", "-q", "-c", "drafts/network/upf/one")
	deployment := readFile(t, one, "network/upf/deployment.yaml")
	w.write(one, "network/upf/deployment.yaml", strings.Replace(deployment, "replicas: 1", "replicas: 3", 1))
	w.git(one, "commit", "-q", "-am", "Three UPF replicas")
	w.git(one, "push", "-q", "origin", "HEAD")
	fl.settle()
	pr1 := w.openPull("alice", repo, "drafts/network/upf/one", "Three UPF replicas")
	fl.settle()
	w.approve("bob", repo, pr1.GetNumber())
	fl.settle()
	if run := w.checkRun(repo, pr1.GetHead().GetSHA(), "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval of #%d: %s", pr1.GetNumber(), run.GetConclusion())
	}

	// Then, before any replica hears of it, the first merge, a second
	// proposal on top of it and its merge, and the late one's merge.
	m1 := w.merge("alice", repo, pr1.GetNumber())
	two := w.clone("alice", repo)
	w.git(two, "switch", "-q", "-c", "drafts/network/upf/two")
	w.write(two, "network/upf/deployment.yaml", strings.Replace(deployment, "replicas: 1", "replicas: 5", 1))
	w.git(two, "commit", "-q", "-am", "Five UPF replicas")
	w.git(two, "push", "-q", "origin", "HEAD")
	pr2 := w.openPull("alice", repo, "drafts/network/upf/two", "Five UPF replicas")
	w.approve("bob", repo, pr2.GetNumber())
	m2 := w.merge("alice", repo, pr2.GetNumber())
	pr3 := w.openPull("alice", repo, "drafts/network/upf/pfcp", "Move PFCP")
	w.approve("bob", repo, pr3.GetNumber())
	m3 := w.merge("alice", repo, pr3.GetNumber())
	fl.settle()

	// One tag per published landing, in history order, no gaps.
	want := map[string]string{pkg + "/v1": seed, pkg + "/v2": m1, pkg + "/v3": m2}
	got := w.tags(repo, pkg+"/")
	if len(got) != len(want) {
		t.Fatalf("tags %v, want %v", got, want)
	}
	for tag, sha := range want {
		if got[tag] != sha {
			t.Fatalf("%s on %s, want %s (tags %v)", tag, got[tag], sha, got)
		}
	}
	for tag, sha := range got {
		if sha == m3 {
			t.Fatalf("the refused landing %s was tagged %s", m3, tag)
		}
	}
	// One release per tag.
	rels := w.releases(repo)
	if want := []string{pkg + "/v1", pkg + "/v2", pkg + "/v3"}; !slices.Equal(rels, want) {
		t.Fatalf("releases %v, want %v", rels, want)
	}
	// The refused merge: one draft of its state, one comment.
	draft := "drafts/" + pkg + "/" + publish.MergedDraftWorkspace(plumbing.NewHash(m3))
	if w.branchSHA(repo, draft) == "" {
		t.Fatalf("no draft %s of the refused merge", draft)
	}
	var refusals []string
	for _, pr := range []int{pr1.GetNumber(), pr2.GetNumber(), pr3.GetNumber()} {
		seen := map[string]bool{}
		for _, c := range w.botComments(repo, pr) {
			if seen[c.GetBody()] {
				t.Errorf("#%d: porchbot said the same thing twice:\n%s", pr, c.GetBody())
			}
			seen[c.GetBody()] = true
			if strings.Contains(c.GetBody(), "Not published") {
				refusals = append(refusals, fmt.Sprintf("#%d: %s", pr, c.GetBody()))
			}
		}
	}
	if len(refusals) != 1 {
		t.Fatalf("%d refusal comments, want one (on #%d):\n%s", len(refusals), pr3.GetNumber(), strings.Join(refusals, "\n---\n"))
	}
	if n := len(w.botComments(repo, pr3.GetNumber())); n != 1 {
		t.Fatalf("%d bot comments on #%d, want the refusal only", n, pr3.GetNumber())
	}
	// Every replica handled every delivery once.
	events := map[string]int{}
	for _, d := range w.svc.Embedded.Forge.Deliveries() {
		events[d.Event]++
	}
	for i, r := range fl.replicas {
		for ev, n := range events {
			if got := testutil.ToFloat64(r.Metrics.Deliveries.WithLabelValues(ev, "processed")); int(got) != n {
				t.Errorf("replica %d processed %v %s deliveries of %d", i, got, ev, n)
			}
		}
	}
}
