package render

import (
	"errors"

	"github.com/porchbot/porchbot/internal/fnimage"
	"github.com/porchbot/porchbot/internal/render/builtins"

	"context"
)

// FunctionImages pulls the function images porchbot does not build in
// that the server's allowlist names (fnimage.Puller).
type FunctionImages interface {
	// Allows reports whether the allowlist may let image run.
	Allows(image string) bool
	// Program pulls image, or finds it in the cache, and returns the
	// program its entrypoint names.
	Program(ctx context.Context, image string) (fnimage.Program, error)
}

// pulledImage reports whether the step's image is one Options.Images
// pulls: not one of the built-ins (resolveErr, builtins.Resolve's), and
// named by the server's allowlist.
func (r *renderer) pulledImage(fn Function, image string, resolveErr error) bool {
	var nb *builtins.ErrNotBuiltin
	return r.opts.Images != nil && fn.Image != "" && fn.Exec == "" && errors.As(resolveErr, &nb) && r.opts.Images.Allows(image)
}

// pull is the program of a pulled image step, as an exec function.
func (r *renderer) pull(fn Function, image string) (*ExecFunction, error) {
	if fn.Tag != "" {
		// a tag as written, not a constraint resolved against the
		// registry's tags (which porchbot does not do for images it pulls)
		if !builtins.IsImageTag(fn.Tag) {
			return nil, &UnsupportedFunctionError{Function: fn, Reason: "porchbot does not resolve a `tag:` constraint " +
				"against a registry: name the tag or the digest in `image:`"}
		}
		image = withTag(image, fn.Tag)
	}
	p, err := r.opts.Images.Program(r.ctx, image)
	if err != nil {
		return nil, &UnsupportedFunctionError{Function: fn, Reason: err.Error()}
	}
	return &ExecFunction{Path: p.Path, Args: p.Args}, nil
}
