package builtins

import (
	"fmt"
	"io/fs"
	"net/url"
	"syscall"
)

// How the releases read a values file the config names: a path relative
// to the working directory (porchbot: to the package), else (v0.2.0 on,
// or v0.1.0 without valuesInline) a URL to fetch, which porchbot refuses.

// packageValuesFile reads a values file of the package: where the package
// has none, the error the release's os.ReadFile had (open <f>: no such
// file or directory), which the release's messages carry.
func (h *renderHelmChart) packageValuesFile(f string) ([]byte, error) {
	rel, err := packageRel(f, "values file")
	if err != nil {
		return nil, err
	}
	if h.src.Package != nil {
		b, err := h.src.Package.Read(rel)
		if err == nil {
			return b, nil
		}
		if !isNotExist(err) {
			return nil, fmt.Errorf("reading the values file %q: %w", f, err)
		}
	}
	return nil, &fs.PathError{Op: "open", Path: f, Err: syscall.ENOENT}
}

// valuesFileURL is a values file the release would fetch, having failed
// to read it as a file: an http(s) URL.
func valuesFileURL(f string) bool {
	u, err := url.Parse(f)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// readValuesFile reads a values file as v0.2.0 on do: a file the package
// lacks fails with the release's message, which says how it failed as a
// path and as a URL (v0.2.0: as a URL only).
func (r helmChartRelease) readValuesFile(read func(string) ([]byte, error), f string) ([]byte, error) {
	b, err := read(f)
	if !isNotExist(err) {
		return b, err
	}
	if valuesFileURL(f) {
		return nil, errNotInPackage("values file", f)
	}
	_, urlErr := url.Parse(f)
	if urlErr == nil {
		urlErr = fmt.Errorf("unsupported URL scheme: %s", f)
		if r.schemeOnly {
			return nil, urlErr
		}
	}
	return nil, fmt.Errorf("could not read provided values file %q: when reading as file path, received error %w; when reading as URL, received error %w", f, err, urlErr)
}
