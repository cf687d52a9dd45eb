package forge

import (
	"strconv"
	"strings"
)

// diffPosition finds a line of a file's patch: side RIGHT counts lines of
// the new file, LEFT of the old. It returns the line's position (lines
// below the patch's first "@@" header, as GitHub counts them) and the
// diff hunk up to that line; ok is false when the line is not in the
// diff. Domain only: no HTTP here.
func diffPosition(patch string, line int, side string) (position int, hunk string, ok bool) {
	lines := strings.Split(patch, "\n")
	oldN, newN := 0, 0
	hunkStart := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") {
			oldN, newN = hunkStarts(l)
			hunkStart = i
			continue
		}
		if hunkStart < 0 {
			continue
		}
		var atOld, atNew int
		switch {
		case strings.HasPrefix(l, "+"):
			atNew = newN
			newN++
		case strings.HasPrefix(l, "-"):
			atOld = oldN
			oldN++
		case strings.HasPrefix(l, `\`):
			continue
		default:
			atOld, atNew = oldN, newN
			oldN++
			newN++
		}
		if (side == "LEFT" && atOld == line) || (side != "LEFT" && atNew == line) {
			return i, strings.Join(lines[hunkStart:i+1], "\n"), true
		}
	}
	return 0, "", false
}

// hunkStarts reads "@@ -a,b +c,d @@": the first old and new line numbers.
func hunkStarts(header string) (oldStart, newStart int) {
	for _, f := range strings.Fields(header) {
		num, _, _ := strings.Cut(f[min(1, len(f)):], ",")
		n, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(f, "-"):
			oldStart = n
		case strings.HasPrefix(f, "+"):
			newStart = n
		}
	}
	return oldStart, newStart
}
