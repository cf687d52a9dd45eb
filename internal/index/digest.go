package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// DigestPrefix starts every tree digest.
const DigestPrefix = "sha256:"

// TreeDigest is the content digest of a package tree, defined so anyone can
// recompute it: the files of the package directory (subpackages and the
// Kptfile included), named by their path relative to the package
// directory with "/" separators, sorted by path in byte order; for each
// file, its path, a NUL byte, its length in decimal, a NUL byte and its
// bytes, all fed in that order to SHA-256. The digest is "sha256:" and
// the hex of the sum. Modes, timestamps and empty directories do not count
// (git does not keep the last two either).
func TreeDigest(files map[string][]byte) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(files[p]))
		h.Write(files[p])
	}
	return DigestPrefix + hex.EncodeToString(h.Sum(nil))
}
