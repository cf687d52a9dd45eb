package forge

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Delivery is one webhook the forge sent (or lost on purpose).
type Delivery struct {
	ID      string
	Event   string
	Action  string
	Repo    string
	Payload []byte
	Status  int    // the receiver's answer; 0 when dropped or failed
	Err     string // transport error, if any
	Dropped bool   // lost by fault injection

	// HookID is the repository hook delivered to; 0 is the App's webhook.
	HookID int64
	// Num is the delivery's numeric id in the deliveries APIs, given as
	// it is made, so that ids grow along the history.
	Num            int64
	RepoID         int64 // 0 for an event of no repository
	InstallationID int64 // the App's installation the event is for; 0 for a repository hook
	Redelivery     bool
	DeliveredAt    time.Time
	Duration       time.Duration
	ReqHeaders     map[string]string
	RespHeaders    map[string]string
	RespBody       string
	target         hookTarget
}

// hookTarget is where and how a delivery goes.
type hookTarget struct {
	url, contentType string
	secret           []byte
	targetType       string // integration | repository
	targetID         int64
}

// deliverer sends webhooks one at a time, in the order they were emitted,
// to the App's webhook URL, signed as GitHub signs them.
type deliverer struct {
	f      *Forge
	queue  chan *Delivery
	client *http.Client

	mu      sync.Mutex
	cond    *sync.Cond
	pending int
	log     []Delivery
	hookLog []Delivery // repository hooks' deliveries, oldest first
	started bool
	done    chan struct{}
}

func newDeliverer(f *Forge) *deliverer {
	d := &deliverer{f: f, queue: make(chan *Delivery, 100000), client: &http.Client{Timeout: 10 * time.Second},
		done: make(chan struct{})}
	d.cond = sync.NewCond(&d.mu)
	return d
}

func (d *deliverer) start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started {
		return
	}
	d.started = true
	go d.run()
}

func (d *deliverer) stop() {
	d.mu.Lock()
	started := d.started
	d.mu.Unlock()
	if started {
		close(d.queue)
		<-d.done
	}
}

func (d *deliverer) run() {
	defer close(d.done)
	for del := range d.queue {
		d.send(del)
		d.mu.Lock()
		del.Num = d.f.newID()
		if del.HookID == 0 {
			d.log = append(d.log, *del)
		} else {
			d.hookLog = append(d.hookLog, *del)
			if len(d.hookLog) > maxHookLog {
				d.hookLog = d.hookLog[len(d.hookLog)-maxHookLog:]
			}
		}
		d.pending--
		d.cond.Broadcast()
		d.mu.Unlock()
	}
}

// maxHookLog bounds the repository hooks' delivery history kept.
const maxHookLog = 10000

// appOnlyEvents go to the App, never to repository hooks.
var appOnlyEvents = map[string]bool{"installation": true, "installation_repositories": true}

// emit queues a webhook for the App, if one is registered with a URL and
// installed on repo, and for each active hook of repo subscribed to the
// event. payload is marshalled as is (a go-github event type or a map).
func (f *Forge) emit(event, action string, repo *Repo, payload any) {
	app := f.appInfo()
	toApp := app != nil && app.WebhookURL != "" && (repo == nil || f.installationFor(repo) != nil) &&
		(appOnlyEvents[event] || slices.Contains(f.appEvents(), event)) // what the App subscribes to
	var hooks []Hook
	if repo != nil && !appOnlyEvents[event] {
		hooks = f.repoHooks.subscribed(repo.ID, event)
	}
	if !toApp && len(hooks) == 0 {
		return
	}
	body, err := marshalGitHub(payload, forWebhook)
	if err != nil {
		f.log.WithError(err).WithField("event", event).Error("marshal webhook payload")
		return
	}
	if toApp {
		del := &Delivery{ID: newDeliveryID(), Event: event, Action: action, Payload: body,
			InstallationID: payloadInstallationID(body)}
		if repo != nil {
			del.Repo, del.RepoID = repo.FullName(), repo.ID
		}
		f.hooks.queueDelivery(del)
	}
	if len(hooks) > 0 {
		hookBody := withoutInstallation(body)
		for _, h := range hooks {
			f.hooks.queueDelivery(&Delivery{ID: newDeliveryID(), Event: event, Action: action, Payload: hookBody,
				Repo: repo.FullName(), RepoID: repo.ID, HookID: h.ID, target: h.target(repo)})
		}
	}
}

// payloadInstallationID is the id of the installation a payload names
// (0 when none): the installation_id GitHub records with the delivery.
func payloadInstallationID(body []byte) int64 {
	var p struct {
		Installation struct {
			ID int64 `json:"id"`
		} `json:"installation"`
	}
	if json.Unmarshal(body, &p) != nil {
		return 0
	}
	return p.Installation.ID
}

// withoutInstallation drops the "installation" a payload carries for the
// App: a repository hook's payload has none, as on GitHub.
func withoutInstallation(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m["installation"] == nil {
		return body
	}
	delete(m, "installation")
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

func (d *deliverer) queueDelivery(del *Delivery) {
	d.mu.Lock()
	d.pending++
	d.mu.Unlock()
	d.queue <- del
}

// appTarget is the App's webhook: its URL and secret, as it is now.
func (d *deliverer) appTarget() hookTarget {
	app := d.f.appInfo()
	return hookTarget{url: app.WebhookURL, contentType: "json", secret: app.WebhookSecret,
		targetType: "integration", targetID: app.ID}
}

func (d *deliverer) send(del *Delivery) {
	del.DeliveredAt = d.f.now()
	if d.f.faults.dropDelivery() {
		del.Dropped = true
		return
	}
	t := del.target
	if del.HookID == 0 {
		t = d.appTarget()
	}
	body, ctype := del.Payload, "application/json"
	if t.contentType == "form" {
		body, ctype = []byte("payload="+url.QueryEscape(string(del.Payload))), "application/x-www-form-urlencoded"
	}
	req, err := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		del.Err = err.Error()
		return
	}
	h := req.Header
	h.Set("Content-Type", ctype)
	h.Set("User-Agent", "GitHub-Hookshot/forge")
	h.Set("X-GitHub-Event", del.Event)
	h.Set("X-GitHub-Delivery", del.ID)
	h.Set("X-GitHub-Hook-ID", strconv.FormatInt(max(del.HookID, 1), 10))
	h.Set("X-GitHub-Hook-Installation-Target-Type", t.targetType)
	h.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(t.targetID, 10))
	if len(t.secret) > 0 {
		mac := hmac.New(sha256.New, t.secret)
		mac.Write(body)
		mac1 := hmac.New(sha1.New, t.secret)
		mac1.Write(body)
		h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		h.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(mac1.Sum(nil)))
	}
	del.ReqHeaders = map[string]string{}
	for k := range h {
		del.ReqHeaders[k] = h.Get(k)
	}
	start := time.Now()
	resp, err := d.client.Do(req)
	del.Duration = time.Since(start)
	if err != nil {
		del.Err = err.Error()
		d.f.log.WithError(err).WithField("event", del.Event).Warn("webhook delivery failed")
		return
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxHookResponse))
	_ = resp.Body.Close()
	del.Status = resp.StatusCode
	del.RespBody = string(data)
	del.RespHeaders = map[string]string{}
	for k := range resp.Header {
		del.RespHeaders[k] = resp.Header.Get(k)
	}
}

// maxHookResponse bounds the receiver's answer a delivery keeps.
const maxHookResponse = 64 << 10

// WaitDeliveries blocks until every webhook emitted so far was delivered
// (or dropped), or ctx ends.
func (f *Forge) WaitDeliveries(ctx context.Context) error {
	d := f.hooks
	done := make(chan struct{})
	go func() {
		d.mu.Lock()
		for d.pending > 0 && ctx.Err() == nil {
			d.cond.Wait()
		}
		d.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return ctx.Err()
	case <-ctx.Done():
		d.mu.Lock()
		d.cond.Broadcast()
		d.mu.Unlock()
		<-done
		return fmt.Errorf("forge: waiting for webhook deliveries: %w", ctx.Err())
	}
}

// Deliveries returns every delivery to the App made so far, in order.
func (f *Forge) Deliveries() []Delivery {
	f.hooks.mu.Lock()
	defer f.hooks.mu.Unlock()
	return append([]Delivery(nil), f.hooks.log...)
}

// newDeliveryID is a GUID like GitHub's X-GitHub-Delivery.
func newDeliveryID() string {
	h := randomHex(16)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
