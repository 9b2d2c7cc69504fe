package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

// MaxCommandBytes is how much of a command's redacted text (or argv) a
// record keeps; past it the record is the head of the text, its length and
// its SHA-256. A record's size is so bounded whatever the command: the
// text once, never a copy per segment.
const MaxCommandBytes = 16 << 10

// MaxReasonBytes is how much of a reason a record keeps.
const MaxReasonBytes = 4 << 10

// dropSegments replaces a record's segments with their count before any
// work is done on them: they are copies of the command's text, as many as
// it has substitutions and commands.
func dropSegments(rec *Record) {
	if rec.Segments != nil {
		if rec.SegmentCount == 0 {
			rec.SegmentCount = len(rec.Segments)
		}
		rec.Segments = nil
	}
}

// bound truncates the text fields of a redacted, sanitized record to their
// caps.
func bound(rec *Record) {
	rec.Reason = cut(rec.Reason, MaxReasonBytes)
	if len(rec.Command) > MaxCommandBytes {
		sum := sha256.Sum256([]byte(rec.Command))
		rec.CommandBytes, rec.CommandSHA256 = int64(len(rec.Command)), hex.EncodeToString(sum[:])
		rec.Command = cut(rec.Command, MaxCommandBytes)
	}
	if n := argvBytes(rec.Argv); n > MaxCommandBytes {
		h := sha256.New()
		for _, a := range rec.Argv {
			h.Write([]byte(a))
			h.Write([]byte{0})
		}
		rec.CommandBytes, rec.CommandSHA256 = int64(n), hex.EncodeToString(h.Sum(nil))
		rec.Argv = cutArgv(rec.Argv, MaxCommandBytes)
	}
}

// argvBytes is the length of argv as NUL-terminated words.
func argvBytes(argv []string) int {
	n := 0
	for _, a := range argv {
		n += len(a) + 1
	}
	return n
}

// cutArgv keeps the words of argv that fit in max bytes (NUL-terminated),
// the last one cut to fit. argv itself is not modified.
func cutArgv(argv []string, max int) []string {
	var out []string
	for _, a := range argv {
		if len(a)+1 > max {
			if s := cut(a, max-1); s != "" {
				out = append(out, s)
			}
			break
		}
		out = append(out, a)
		max -= len(a) + 1
	}
	return out
}

// cut returns at most max bytes of the valid UTF-8 s, never splitting a
// character.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
