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
	"net/http"
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
		d.log = append(d.log, *del)
		d.pending--
		d.cond.Broadcast()
		d.mu.Unlock()
	}
}

// emit queues a webhook for the App, if one is registered with a URL.
// payload is marshalled as is (a go-github event type or a map).
func (f *Forge) emit(event, action string, repo *Repo, payload any) {
	app := f.appInfo()
	if app == nil || app.WebhookURL == "" {
		return
	}
	if repo != nil && f.installationFor(repo) == nil {
		return // the App only hears about repositories it is installed on
	}
	body, err := json.Marshal(payload)
	if err != nil {
		f.log.WithError(err).WithField("event", event).Error("marshal webhook payload")
		return
	}
	del := &Delivery{ID: newDeliveryID(), Event: event, Action: action, Payload: body}
	if repo != nil {
		del.Repo = repo.FullName()
	}
	d := f.hooks
	d.mu.Lock()
	d.pending++
	d.mu.Unlock()
	d.queue <- del
}

func (d *deliverer) send(del *Delivery) {
	if d.f.faults.dropDelivery() {
		del.Dropped = true
		return
	}
	app := d.f.appInfo()
	req, err := http.NewRequest(http.MethodPost, app.WebhookURL, bytes.NewReader(del.Payload))
	if err != nil {
		del.Err = err.Error()
		return
	}
	mac := hmac.New(sha256.New, app.WebhookSecret)
	mac.Write(del.Payload)
	mac1 := hmac.New(sha1.New, app.WebhookSecret)
	mac1.Write(del.Payload)
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "GitHub-Hookshot/forge")
	h.Set("X-GitHub-Event", del.Event)
	h.Set("X-GitHub-Delivery", del.ID)
	h.Set("X-GitHub-Hook-ID", "1")
	h.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	h.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(app.ID, 10))
	h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	h.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(mac1.Sum(nil)))
	resp, err := d.client.Do(req)
	if err != nil {
		del.Err = err.Error()
		d.f.log.WithError(err).WithField("event", del.Event).Warn("webhook delivery failed")
		return
	}
	_ = resp.Body.Close()
	del.Status = resp.StatusCode
}

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

// Deliveries returns every delivery made so far, in order.
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
