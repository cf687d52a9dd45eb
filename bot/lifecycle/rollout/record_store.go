package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/rollout"
)

// Branch holds the upstream repository's rollout records, one file per
// package (RecordPath), each signed by porchbot: never on the deployment
// branch, like the package index.
const Branch = "porch/rollouts"

// recordFile is a record's file name in its package's directory.
const recordFile = "record.json"

// recordLeaseAttempts bounds the rewrites when the branch keeps moving.
const recordLeaseAttempts = 8

// maxRecordBytes bounds a record file read.
const maxRecordBytes = 32 << 20

// Tampered is who paused a rollout whose record porchbot did not write.
const Tampered = "porchbot (its record on porch/rollouts was not written by porchbot)"

// recordDir is the directory of pkg's record on Branch: one level, the
// package's "/" written "~" (which no package name holds), so that no
// package's directory holds another's.
func recordDir(pkg string) string { return "rollouts/" + strings.ReplaceAll(pkg, "/", "~") }

// RecordPath is where the record of pkg's rollout lives on Branch.
func RecordPath(pkg string) string { return recordDir(pkg) + "/" + recordFile }

// LoadRecord reads the record of pkg's rollout in s (an empty one when
// there is none yet). A record porchbot did not sign is taken as a pause
// (Tampered): an approver's resume starts again from what GitHub shows.
func LoadRecord(ctx context.Context, s *core.Session, pkg string, now time.Time) (rollout.Record, plumbing.Hash, error) {
	head, err := s.ResolveRef(ctx, "refs/heads/"+Branch)
	if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
		return rollout.Record{Package: pkg}, plumbing.ZeroHash, nil
	}
	if err != nil {
		return rollout.Record{}, plumbing.ZeroHash, fmt.Errorf("rollout record of %s: %w", pkg, err)
	}
	rec, err := recordAt(ctx, s, head, pkg, now)
	return rec, head, err
}

func recordAt(ctx context.Context, s *core.Session, head plumbing.Hash, pkg string, now time.Time) (rollout.Record, error) {
	if head.IsZero() {
		return rollout.Record{Package: pkg}, nil
	}
	data, ok, err := s.ReadFile(ctx, head, RecordPath(pkg))
	if err != nil {
		return rollout.Record{}, fmt.Errorf("rollout record of %s: %w", pkg, err)
	}
	if !ok {
		return rollout.Record{Package: pkg}, nil
	}
	if len(data) > maxRecordBytes {
		return tampered(s, pkg, now, fmt.Errorf("%d bytes, more than %d", len(data), maxRecordBytes)), nil
	}
	rec, err := rollout.Decode(s.SigningKey(), s.Repo.FullName(), pkg, data)
	if err != nil {
		return tampered(s, pkg, now, err), nil
	}
	return rec, nil
}

func tampered(s *core.Session, pkg string, now time.Time, err error) rollout.Record {
	s.Log.WithError(err).WithField("package", pkg).Warn("the rollout record was not written by porchbot: the rollout is paused until an approver resumes it")
	rec := rollout.Record{Package: pkg}
	rec.Pause(Tampered, now)
	return rec
}

// UpdateRecord applies change to the record of pkg's rollout and pushes
// it under a lease on Branch; when the branch moved, change is applied
// again to the record there. change says whether it changed anything
// (nothing is pushed otherwise). It returns the record as pushed (or as
// found, when nothing changed).
func UpdateRecord(ctx context.Context, s *core.Session, pkg, what string, now time.Time, change func(*rollout.Record) bool) (rollout.Record, error) {
	head, err := s.ResolveRef(ctx, "refs/heads/"+Branch)
	if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
		head = plumbing.ZeroHash
	} else if err != nil {
		return rollout.Record{}, fmt.Errorf("rollout record of %s: %w", pkg, err)
	}
	var rec rollout.Record
	_, err = s.CommitUnderLease(ctx, core.DefaultIdentity, Branch, head, recordLeaseAttempts, func(ctx context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
		var err error
		if rec, err = recordAt(ctx, s, head, pkg, now); err != nil {
			return nil, err
		}
		if !change(&rec) {
			return nil, nil
		}
		data, err := rollout.Encode(s.SigningKey(), s.Repo.FullName(), rec)
		if err != nil {
			return nil, err
		}
		return &core.PackageCommit{Parent: head, Dir: recordDir(pkg), Files: map[string][]byte{recordFile: data},
			Message: fmt.Sprintf("Rollout of %s: %s", pkg, what)}, nil
	})
	if errors.Is(err, gitstore.ErrNoChanges) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("rollout record of %s: %w", pkg, err)
	}
	return rec, nil
}
