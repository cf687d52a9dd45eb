package packages

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLength bounds a package name in bytes. Names become parts of branch
// names (drafts/<package>/<workspace>, porch/update/<package>) and tags
// (<package>/v<N>), so they are kept well under the limits of file systems
// that store refs as files.
const MaxNameLength = 200

// maxSegmentLength bounds one path segment (a directory name; a ref stored as
// a file needs each segment to fit a file name).
const maxSegmentLength = 100

// ErrInvalidName is wrapped by every error of ValidateName.
var ErrInvalidName = errors.New("invalid package name")

// ErrInvalidWorkspace is wrapped by every error of ValidateWorkspace.
var ErrInvalidWorkspace = errors.New("invalid workspace name")

// ValidateName checks a package name: a slash-separated path from the
// packages root that is safe to use inside git ref names.
//
// Refused: the empty name, absolute paths, leading or trailing slashes,
// empty, "." or ".." segments, segments starting with "." (so ".github" and
// other hidden directories), control characters, spaces and any other
// non-printing or invisible character, the characters git forbids in ref
// names (~ ^ : ? * [ \), "..", "@{", a lone "@", segments ending in ".lock",
// a trailing ".", segments starting with "-", and names longer than
// MaxNameLength bytes (or a segment longer than 100).
func ValidateName(pkg string) error {
	if reason := nameProblem(pkg); reason != "" {
		return fmt.Errorf("%w %q: %s", ErrInvalidName, pkg, reason)
	}
	return nil
}

func nameProblem(pkg string) string {
	switch {
	case pkg == "":
		return "it is empty"
	case len(pkg) > MaxNameLength:
		return fmt.Sprintf("it is %d bytes long, more than %d", len(pkg), MaxNameLength)
	case strings.HasPrefix(pkg, "/"):
		return "it must be a relative path (no leading /)"
	case strings.HasSuffix(pkg, "/"):
		return "it must not end with /"
	}
	if reason := charProblem(pkg); reason != "" {
		return reason
	}
	if strings.Contains(pkg, "//") {
		return "it has an empty path segment (//)"
	}
	for i, seg := range strings.Split(pkg, "/") {
		if reason := segmentProblem(seg); reason != "" {
			if i == 0 && strings.EqualFold(seg, ".github") {
				return "packages cannot live under .github"
			}
			return fmt.Sprintf("segment %q: %s", seg, reason)
		}
	}
	if strings.Contains(pkg, "..") {
		return dotDotProblem
	}
	return ""
}

// charProblem checks the characters of a ref-bound name.
func charProblem(s string) string {
	if !utf8.ValidString(s) {
		return "it is not valid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == ' ':
			return "it contains a space"
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("it contains the control character %U", r)
		case !unicode.IsPrint(r):
			return fmt.Sprintf("it contains the non-printing or invisible character %U", r)
		case strings.ContainsRune(`~^:?*[\`, r):
			return fmt.Sprintf("it contains %q, which git does not allow in ref names", string(r))
		}
	}
	if strings.Contains(s, "@{") {
		return `it contains "@{", which git does not allow in ref names`
	}
	return ""
}

const dotDotProblem = `it contains "..", which git does not allow in ref names`

// segmentProblem checks one path segment against git's ref rules and the
// path rules of a package directory.
func segmentProblem(seg string) string {
	switch {
	case seg == "":
		return "it is empty"
	case seg == "." || seg == "..":
		return "relative path segments are not allowed"
	case strings.HasPrefix(seg, "."):
		return "it starts with a dot (hidden directories are not packages, and git refuses such ref names)"
	case strings.HasSuffix(seg, ".lock"):
		return `it ends with ".lock", which git does not allow in ref names`
	case strings.HasSuffix(seg, "."):
		return "it ends with a dot, which git does not allow in ref names"
	case seg == "@":
		return `a lone "@" is not allowed in ref names`
	case strings.HasPrefix(seg, "-"):
		return "it starts with a dash"
	case len(seg) > maxSegmentLength:
		return fmt.Sprintf("it is %d bytes long, more than %d", len(seg), maxSegmentLength)
	}
	return ""
}

// ValidateWorkspace checks a draft's workspace name. Porch names a package
// revision object <repository>.<package>.<workspace> and requires the
// workspace to be an RFC 1123 DNS label: 1 to 63 lowercase letters, digits
// and dashes, starting and ending with a letter or digit. porchbot keeps that
// rule so its drafts stay readable by Porch.
func ValidateWorkspace(ws string) error {
	if reason := workspaceProblem(ws); reason != "" {
		return fmt.Errorf("%w %q: %s", ErrInvalidWorkspace, ws, reason)
	}
	return nil
}

func workspaceProblem(ws string) string {
	switch {
	case ws == "":
		return "it is empty"
	case len(ws) > 63:
		return fmt.Sprintf("it is %d characters long, more than 63", len(ws))
	}
	for _, r := range ws {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return "only lowercase letters, digits and '-' are allowed (an RFC 1123 label, as Porch requires)"
		}
	}
	if ws[0] == '-' || ws[len(ws)-1] == '-' {
		return "it must start and end with a letter or digit"
	}
	return ""
}

// ValidateBranchName checks a branch name (without refs/heads/) against
// git's ref name rules (git check-ref-format --branch).
func ValidateBranchName(branch string) error {
	reason := ""
	switch {
	case branch == "":
		reason = "it is empty"
	case strings.HasPrefix(branch, "/") || strings.HasSuffix(branch, "/"):
		reason = "it must not start or end with /"
	case strings.HasPrefix(branch, "-"):
		reason = "it must not start with a dash"
	case branch == "HEAD":
		reason = `"HEAD" is not a branch name`
	case strings.Contains(branch, "//"):
		reason = "it has an empty segment (//)"
	default:
		reason = charProblem(branch)
		if reason == "" {
			for _, seg := range strings.Split(branch, "/") {
				switch {
				case strings.HasPrefix(seg, "."):
					reason = fmt.Sprintf("segment %q starts with a dot", seg)
				case strings.HasSuffix(seg, ".lock"):
					reason = fmt.Sprintf("segment %q ends with \".lock\"", seg)
				case seg == "@":
					reason = `a lone "@" is not allowed`
				}
				if reason != "" {
					break
				}
			}
		}
		if reason == "" && strings.Contains(branch, "..") {
			reason = dotDotProblem
		}
		if reason == "" && strings.HasSuffix(branch, ".") {
			reason = "it ends with a dot"
		}
	}
	if reason != "" {
		return fmt.Errorf("invalid branch name %q: %s", branch, reason)
	}
	return nil
}
