package surface

import (
	"fmt"
	"io"
	"strings"
)

// maxDiffCells bounds the line diff's table (lines expected × lines got);
// beyond it both sides are printed whole, which is still correct.
const maxDiffCells = 4 << 20

// writeDiff prints one changed call:
//
//	where: command
//	  status: "exited" → "rejected"
//	  stdout:
//	    - a line only expected
//	    + a line only got
//	      a line in both
func writeDiff(w io.Writer, where, command string, diffs []fieldDiff) {
	fmt.Fprintf(w, "%s: %s\n", where, command)
	for _, d := range diffs {
		if !strings.Contains(d.expected, "\n") && !strings.Contains(d.got, "\n") {
			fmt.Fprintf(w, "  %s: %q → %q\n", d.name, d.expected, d.got)
			continue
		}
		fmt.Fprintf(w, "  %s:\n", d.name)
		for _, l := range lineDiff(splitLines(d.expected), splitLines(d.got)) {
			fmt.Fprintln(w, strings.TrimRight("    "+l, " "))
		}
	}
}

// splitLines splits s into lines, marking a missing final newline the way
// diff(1) does, so that it shows as a change.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimSuffix(l, "\n")
		} else {
			lines[i] = l + `\ (no newline at end)`
		}
	}
	return lines
}

// lineDiff returns a's and b's lines, each prefixed "- " (only in a), "+ "
// (only in b) or "  " (both), along a longest common subsequence.
func lineDiff(a, b []string) []string {
	if len(a)*len(b) > maxDiffCells {
		return wholeDiff(a, b)
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i, j = i+1, j+1
		case j == len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}

func wholeDiff(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, l := range a {
		out = append(out, "- "+l)
	}
	for _, l := range b {
		out = append(out, "+ "+l)
	}
	return out
}
