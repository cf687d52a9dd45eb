package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/sirupsen/logrus"
)

// PushRequest updates one remote ref under a lease.
type PushRequest struct {
	// Ref is the full remote ref name (refs/heads/..., refs/tags/...).
	Ref plumbing.ReferenceName
	// New is the object to point Ref at; ZeroHash deletes Ref.
	New plumbing.Hash
	// Old is the lease: the value Ref must have on the remote when it is
	// updated; ZeroHash means Ref must not exist (create only).
	Old plumbing.Hash
	// Exclusive makes a create-only push (Old ZeroHash) report a remote ref
	// that already points at New as a broken lease instead of success:
	// replicas that built the same commit (same parent, tree, message and
	// second) learn that another one created the ref first.
	Exclusive bool
}

func (r PushRequest) validate() error {
	if !strings.HasPrefix(r.Ref.String(), "refs/") {
		return fmt.Errorf("ref %q is not a full ref name", r.Ref)
	}
	if err := r.Ref.Validate(); err != nil {
		return fmt.Errorf("ref %q: %w", r.Ref, err)
	}
	if r.New.IsZero() && r.Old.IsZero() {
		return fmt.Errorf("deleting %s needs the lease (Old)", r.Ref)
	}
	return nil
}

// Push sets the remote ref req.Ref to req.New if, and only if, it is at
// req.Old (see the package documentation for the exact guarantees). A moved
// ref is a *LeaseError (errors.Is(err, ErrLeaseBroken)); any other refusal
// is ErrRejected. If the remote ref already has the requested value Push
// returns nil. On success the cache's mirror of the ref
// (refs/remotes/origin/B for refs/heads/B, the ref itself otherwise) is
// updated.
func (c *Cache) Push(ctx context.Context, req PushRequest) error {
	if err := req.validate(); err != nil {
		return fmt.Errorf("gitstore: push to %s: %w", c.loc.name, err)
	}

	outcome := outcomeError
	defer func() { c.store.observe("push", outcome) }()

	repo, release, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer c.entry.refsMoved() // under the lock: RefGeneration

	if !req.New.IsZero() && repo.Storer.HasEncodedObject(req.New) != nil {
		return fmt.Errorf("gitstore: push %s to %s: object %s %w in the cache", req.Ref, c.loc.name, req.New, ErrNotFound)
	}
	auth, err := c.store.auth(ctx, c.loc)
	if err != nil {
		return err
	}

	log := c.logger(ctx, req.Ref).WithFields(map[string]any{"old": req.Old.String(), "new": req.New.String()})
	c.store.pushes.Add(1)
	p := pusher{cache: c, repo: repo, auth: auth, req: req}
	outcome, err = p.push(ctx)
	switch outcome {
	case outcomeOK, outcomeUpToDate:
		p.updateMirror(log)
		log.WithField("outcome", outcome).Info("git push")
	case outcomeLeaseBroken:
		log.WithError(err).Info("git push: lease broken")
	default:
		log.WithError(err).Warn("git push failed")
	}
	return err
}

// pusher runs one push with the repository lock held.
type pusher struct {
	cache *Cache
	repo  *git.Repository
	auth  transport.AuthMethod
	req   PushRequest
}

func (p *pusher) push(ctx context.Context) (string, error) {
	sess, err := p.session()
	if err != nil {
		return outcomeError, err
	}
	defer sess.Close()

	adv, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return outcomeError, p.cache.transportError("push", err)
	}
	current, err := advertised(adv, p.req.Ref)
	if err != nil {
		return outcomeError, fmt.Errorf("gitstore: push %s to %s: %w", p.req.Ref, p.cache.loc.name, err)
	}

	// Already in the requested state: nothing to send, whatever the lease
	// (unless the caller must be the one that created the ref).
	if current == p.req.New {
		if p.req.Exclusive && p.req.Old.IsZero() && !current.IsZero() {
			return outcomeLeaseBroken, p.leaseError(current, "")
		}
		return outcomeUpToDate, nil
	}
	// 1. Client-side lease check against this session's advertisement.
	if current != p.req.Old {
		return outcomeLeaseBroken, p.leaseError(current, "")
	}
	if p.req.New.IsZero() && !adv.Capabilities.Supports(capability.DeleteRefs) {
		return outcomeError, fmt.Errorf("gitstore: push to %s: the remote does not support deleting refs", p.cache.loc.name)
	}

	// 2. The command carries the lease as its old value: receive-pack
	// updates the ref only if it is still at Old when the ref is locked.
	upd := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	upd.Commands = []*packp.Command{{Name: p.req.Ref, Old: p.req.Old, New: p.req.New}}
	msgs := &serverMessages{}
	if adv.Capabilities.Supports(capability.Sideband64k) {
		_ = upd.Capabilities.Set(capability.Sideband64k)
	} else if adv.Capabilities.Supports(capability.Sideband) {
		_ = upd.Capabilities.Set(capability.Sideband)
	}
	upd.Progress = msgs

	report, err := p.send(ctx, sess, adv, upd)
	if report != nil {
		if report.UnpackStatus != "ok" {
			return outcomeError, fmt.Errorf("gitstore: push %s to %s: %w: remote could not unpack: %s%s",
				p.req.Ref, p.cache.loc.name, ErrRejected, report.UnpackStatus, msgs.suffix())
		}
		for _, cs := range report.CommandStatuses {
			if cs.ReferenceName == p.req.Ref && cs.Status != "ok" {
				// 3. Refused: find out whether the ref moved.
				return p.refused(ctx, cs.Status, msgs)
			}
		}
	}
	if err != nil {
		return outcomeError, p.cache.transportError("push", fmt.Errorf("%w%s", err, msgs.suffix()))
	}
	return outcomeOK, nil
}

func (p *pusher) session() (transport.ReceivePackSession, error) {
	ep, err := transport.NewEndpoint(p.cache.loc.url)
	if err != nil {
		return nil, fmt.Errorf("gitstore: push to %s: %w", p.cache.loc.name, err)
	}
	cl, err := client.NewClient(ep)
	if err != nil {
		return nil, fmt.Errorf("gitstore: push to %s: %w", p.cache.loc.name, err)
	}
	sess, err := cl.NewReceivePackSession(ep, p.auth)
	if err != nil {
		return nil, p.cache.transportError("push", err)
	}
	return sess, nil
}

// advertised returns the value of ref in the advertisement (ZeroHash if
// absent).
func advertised(adv *packp.AdvRefs, ref plumbing.ReferenceName) (plumbing.Hash, error) {
	refs, err := adv.AllReferences()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	r, err := refs.Reference(ref)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if r.Type() != plumbing.HashReference {
		return plumbing.ZeroHash, fmt.Errorf("remote ref %s is symbolic", ref)
	}
	return r.Hash(), nil
}

// send uploads the objects New needs (none for a deletion) with the command.
func (p *pusher) send(ctx context.Context, sess transport.ReceivePackSession, adv *packp.AdvRefs,
	upd *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if p.req.New.IsZero() {
		return sess.ReceivePack(ctx, upd)
	}
	refs, err := adv.AllReferences()
	if err != nil {
		return nil, err
	}
	var haves []plumbing.Hash
	for _, r := range refs {
		if r.Type() == plumbing.HashReference {
			haves = append(haves, r.Hash())
		}
	}
	objects, err := revlist.Objects(p.repo.Storer, []plumbing.Hash{p.req.New}, haves)
	if err != nil {
		return nil, fmt.Errorf("gitstore: push %s to %s: objects to send: %w", p.req.Ref, p.cache.loc.name, err)
	}
	cfg, err := p.repo.Storer.Config()
	if err != nil {
		return nil, err
	}

	rd, wr := io.Pipe()
	upd.Packfile = rd
	done := make(chan error, 1)
	go func() {
		enc := packfile.NewEncoder(wr, p.repo.Storer, !adv.Capabilities.Supports(capability.OFSDelta))
		_, err := enc.Encode(objects, cfg.Pack.Window)
		_ = wr.CloseWithError(err)
		done <- err
	}()
	report, err := sess.ReceivePack(ctx, upd)
	// Unblock the encoder if the transport stopped reading, and wait for it:
	// it reads the repository, which must not outlive the lock.
	_ = rd.CloseWithError(io.ErrClosedPipe)
	if encErr := <-done; encErr != nil && err == nil && !errors.Is(encErr, io.ErrClosedPipe) {
		err = fmt.Errorf("encode pack: %w", encErr)
	}
	return report, err
}

// refused classifies a refused command by reading the remote ref again.
func (p *pusher) refused(ctx context.Context, reason string, msgs *serverMessages) (string, error) {
	current, lsErr := p.remoteValue(ctx)
	switch {
	case lsErr == nil && current != p.req.Old:
		return outcomeLeaseBroken, p.leaseError(current, reason)
	case lsErr != nil && movedRefReason(reason):
		le := p.leaseError(plumbing.ZeroHash, reason)
		le.actualUnknown = true
		return outcomeLeaseBroken, le
	default:
		return outcomeError, fmt.Errorf("gitstore: push %s to %s: %w: %s%s",
			p.req.Ref, p.cache.loc.name, ErrRejected, reason, msgs.suffix())
	}
}

// remoteValue reads the ref from a fresh advertisement.
func (p *pusher) remoteValue(ctx context.Context) (plumbing.Hash, error) {
	sess, err := p.session()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer sess.Close()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return advertised(adv, p.req.Ref)
}

// movedRefReason recognises the refusals receive-pack gives for a ref that
// is not at the command's old value ("non-fast-forward" is not one: the
// server says it for receive.denyNonFastForwards, with the ref unmoved).
// Only used when the ref cannot be read again.
func movedRefReason(reason string) bool {
	reason = strings.ToLower(reason)
	for _, s := range []string{
		"failed to update ref", "failed to lock", "cannot lock ref", "already exists",
	} {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}

func (p *pusher) leaseError(actual plumbing.Hash, reason string) *LeaseError {
	return &LeaseError{
		Repository: p.cache.loc.name, Ref: p.req.Ref,
		Expected: p.req.Old, Actual: actual, Reason: reason,
	}
}

// updateMirror records the pushed value in the cache's copy of the ref.
func (p *pusher) updateMirror(log logrus.FieldLogger) {
	name := mirrorRef(p.req.Ref)
	var err error
	if p.req.New.IsZero() {
		err = p.repo.Storer.RemoveReference(name)
	} else {
		err = p.repo.Storer.SetReference(plumbing.NewHashReference(name, p.req.New))
	}
	if err != nil {
		log.Warnf("pushed, but could not update %s in the cache (the next fetch will): %v", name, err)
	}
}

// mirrorRef is where the cache keeps a copy of a remote ref.
func mirrorRef(ref plumbing.ReferenceName) plumbing.ReferenceName {
	if ref.IsBranch() {
		return plumbing.NewRemoteReferenceName(remoteName, strings.TrimPrefix(ref.String(), "refs/heads/"))
	}
	return ref
}

// serverMessages keeps the first messages the server sent on the progress
// side band (hook output, protected-branch explanations).
type serverMessages struct {
	b strings.Builder
}

const maxServerMessages = 4 << 10

func (m *serverMessages) Write(p []byte) (int, error) {
	if room := maxServerMessages - m.b.Len(); room > 0 {
		m.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// suffix returns the messages formatted to end an error, or "".
func (m *serverMessages) suffix() string {
	s := strings.TrimSpace(strings.ReplaceAll(m.b.String(), "\r", "\n"))
	if s == "" {
		return ""
	}
	return " (remote: " + strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ") + ")"
}
