package variant

// A variant carries the upstream's content into its targets: each clone,
// update or adoption passes the flow rule (internal/flow) for the author
// of the configuration commit that made the entry what it is (a merge
// commit stands for its merger). That commit landed on the upstream's
// deployment branch, which vouches for the upstream's side; a target is
// vouched for by a package of its own that already tracks the upstream
// (an update, an adoption), else (a clone) the author must be able to
// write it. A refusal is the target's result (`/porch variants`) and a
// failed porchbot/flow check run on that configuration commit.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/variants"
)

// carriesContent: the action brings upstream content into its target.
func carriesContent(k variants.Kind) bool {
	return k == variants.Clone || k == variants.Update || k == variants.Adopt
}

// variantFlow checks action a of entry a.Variant into its target; with
// report, a refusal is also posted on the entry's configuration commit.
func (c *Controller) variantFlow(ctx context.Context, up *core.Session, f *variantFacts, vt variantTarget, a variants.Action, report bool) error {
	if a.Variant < 0 || a.Variant >= len(up.Config.Variants) || vt.repo == nil || f.session == nil {
		return nil
	}
	at, err := f.entryCommit(ctx, up, a.Variant, c.Updates.Render.Limits)
	if err != nil {
		return err
	}
	src := updates.FlowRepo(up)
	src.Visibility = f.visibility(up.Repo.FullName())
	dst := updates.FlowRepo(f.session)
	dst.Visibility = vt.repo.Visibility
	err = updates.CheckFlow(ctx, c.Flows, flow.Request{Source: src, Target: dst, Commit: at.String(), CommitRepo: updates.FlowRepo(up),
		SourceVouched: true, TargetVouched: a.Kind != variants.Clone, AllowWider: up.Config.Flows.AllowWiderReaders})
	refused, ok := updates.FlowRefusal(err)
	if !ok || !report {
		return err
	}
	why, key := refused.Reason, vt.name
	if f.hidden(up, vt) {
		why = strings.ReplaceAll(why, refused.Target, "a target repository not every reader here can read")
		sum := sha256.Sum256([]byte(strings.ToLower(vt.name)))
		key = "hidden:" + hex.EncodeToString(sum[:8])
	}
	why = fmt.Sprintf("`variants[%d]` of %s: %s.", a.Variant, mdquote.Code(config.Path), why)
	return errors.Join(err, updates.ReportRefusedFlow(ctx, up, at, fmt.Sprintf("variants[%d] %s", a.Variant, key), why))
}

// visibility of a repository of the upstream's installation, as its list
// gave it (Unknown for one it does not hold).
func (f *variantFacts) visibility(fullName string) flow.Visibility {
	if ir, ok := f.repos[strings.ToLower(fullName)]; ok {
		return ir.Visibility
	}
	return flow.Unknown
}

// hidden: vt may not be named in the upstream's threads (`/porch
// variants`, its check runs): not every reader of the upstream can read it,
// and no entry names it (a topic selected it).
func (f *variantFacts) hidden(up *core.Session, vt variantTarget) bool {
	v := flow.Unknown
	if vt.repo != nil {
		v = vt.repo.Visibility
	}
	if flow.Nameable(f.visibility(up.Repo.FullName()), v) {
		return false
	}
	for _, e := range up.Config.Variants {
		for _, r := range e.Targets.Repositories {
			if strings.EqualFold(r, vt.name) {
				return false
			}
		}
	}
	return true
}

// entryCommit is the commit of the upstream's deployment branch (first
// parents) from which on entry i of the configuration has been what it is
// now: the oldest of the newest run of commits whose configuration holds an
// equal entry. Kept for the reconcile.
func (f *variantFacts) entryCommit(ctx context.Context, up *core.Session, i int, limits config.ServerLimits) (plumbing.Hash, error) {
	if h, ok := f.entryAt[i]; ok {
		return h, nil
	}
	want := up.Config.Variants[i]
	at, err := updates.HeldSince(ctx, up, config.Path, func(data []byte) bool {
		cfg, _, err := up.ParseConfig(ctx, data, limits)
		return err == nil && containsVariant(cfg.Variants, want)
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if f.entryAt == nil {
		f.entryAt = map[int]plumbing.Hash{}
	}
	f.entryAt[i] = at
	return at, nil
}

func containsVariant(list []config.Variant, v config.Variant) bool {
	for _, e := range list {
		if reflect.DeepEqual(e, v) {
			return true
		}
	}
	return false
}
