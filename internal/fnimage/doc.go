// Package fnimage runs KRM function images porchbot does not build in,
// without a container runtime: the server's allowlist names the images
// that may run; an allowed image is pulled from its registry
// (go-containerregistry), its layers verified against their digests, the
// program its entrypoint names extracted from the image's file system and
// cached by the image's digest. The render then runs that program as it
// runs an exec function: in the sandbox, never for forks.
//
// A function image built for this runs when its entrypoint is a static
// binary (the kpt catalog's Go functions are: CGO_ENABLED=0 on a distroless
// or alpine base): the program runs on the server's own file system, not
// the image's, so anything it needs beside itself is not there.
package fnimage
