package shellcfg

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Suspicious is a character in command text that renders as nothing, as a
// plain space, or differently from what a shell reads: the kind of
// character that hides a command from a human reviewer or a pattern match.
type Suspicious struct {
	Offset int    // byte offset in the text
	Rune   rune   // the character; utf8.RuneError for an invalid byte
	Name   string // one of the Name constants
}

// The names Scan gives suspicious characters. Any new kind is suspicious
// too, so a caller escalating on a Name it does not know fails closed.
const (
	NameLoneCR       = "lone CR"              // CR not followed by LF
	NameCRLF         = "CRLF"                 // the CR of a CRLF pair; the LF is not reported
	NameVT           = "vertical tab"         // U+000B
	NameFF           = "form feed"            // U+000C
	NameESC          = "escape"               // U+001B, starts terminal control sequences
	NameControl      = "control character"    // other C0, DEL and C1 controls, not TAB or LF
	NameNEL          = "next line"            // U+0085
	NameNBSP         = "no-break space"       // U+00A0
	NameUnicodeSpace = "Unicode space"        // other unicode.Zs characters but ASCII space
	NameLineSep      = "line separator"       // U+2028
	NameParaSep      = "paragraph separator"  // U+2029
	NameZeroWidth    = "zero-width character" // U+200B..U+200D, U+2060, U+FEFF
	NameBidi         = "bidi control"         // U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069
	NameFormat       = "format character"     // other unicode.Cf, e.g. soft hyphen, tag characters
	NameFiller       = "blank filler"         // Hangul fillers and the blank Braille pattern
	NameInvalidUTF8  = "invalid UTF-8"        // a byte that starts no valid UTF-8 sequence
)

// Scan reports every suspicious character in text, in order. TAB and LF are
// ordinary; every other control character, every space but ASCII space,
// and every invisible format character is suspicious. A CR is reported as
// NameCRLF when LF follows it and NameLoneCR otherwise, so a caller can
// tolerate Windows line endings yet escalate on a CR that makes a terminal
// overwrite the start of a line. Scan never fails; it reports invalid UTF-8
// bytes one by one, so it is safe on text Validate has not seen.
func Scan(text string) []Suspicious {
	if plainASCII(text) {
		return nil
	}
	var found []Suspicious
	for off := 0; off < len(text); {
		r, size, name := classify(text, off)
		if name != "" {
			found = append(found, Suspicious{Offset: off, Rune: r, Name: name})
		}
		off += size
	}
	return found
}

// Normalize returns a copy of text in which every character Scan reports,
// and each byte of invalid UTF-8, is one ASCII space; everything else is
// unchanged. The result has as many runes as text has (counting each
// invalid byte as one), and the i-th rune is either the original's or a
// space, so the CR of a CRLF becomes a space and the LF stays a line
// break. It is for pattern matching only, never for execution.
func Normalize(text string) string {
	if plainASCII(text) {
		return text
	}
	var b strings.Builder
	last := 0
	for off := 0; off < len(text); {
		_, size, name := classify(text, off)
		if name != "" {
			if b.Len() == 0 {
				b.Grow(len(text))
			}
			b.WriteString(text[last:off])
			b.WriteByte(' ')
			last = off + size
		}
		off += size
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// classify decodes the rune at text[off:] and names it if it is suspicious.
func classify(text string, off int) (r rune, size int, name string) {
	if c := text[off]; c >= 0x20 && c < 0x7f {
		return rune(c), 1, "" // printable ASCII, the common case
	}
	r, size = utf8.DecodeRuneInString(text[off:])
	if r < utf8.RuneSelf {
		return r, size, classifyASCII(text, off, r)
	}
	if r == utf8.RuneError && size == 1 {
		return r, size, NameInvalidUTF8
	}
	return r, size, classifyUnicode(r)
}

func classifyASCII(text string, off int, r rune) string {
	switch {
	case r == '\t', r == '\n':
		return ""
	case r == '\r' && strings.HasPrefix(text[off+1:], "\n"):
		return NameCRLF
	case r == '\r':
		return NameLoneCR
	case r == '\v':
		return NameVT
	case r == '\f':
		return NameFF
	case r == 0x1b:
		return NameESC
	case isControl(r):
		return NameControl
	}
	return ""
}

func classifyUnicode(r rune) string {
	switch r {
	case 0x85:
		return NameNEL
	case 0xa0:
		return NameNBSP
	case 0x2028:
		return NameLineSep
	case 0x2029:
		return NameParaSep
	case 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff:
		return NameZeroWidth
	case 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x2066, 0x2067, 0x2068, 0x2069:
		return NameBidi
	case 0x115f, 0x1160, 0x3164, 0xffa0, 0x2800:
		return NameFiller
	}
	switch {
	case isControl(r):
		return NameControl
	case unicode.Is(unicode.Zs, r):
		return NameUnicodeSpace
	case unicode.Is(unicode.Cf, r):
		return NameFormat
	}
	return ""
}

// isControl reports C0 controls, DEL and C1 controls.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }

// plainASCII reports text of printable ASCII, tabs and line feeds only: it
// holds nothing Scan reports (the common case, decided without decoding).
func plainASCII(text string) bool {
	// Eight bytes at a time: a word without a high bit, a control byte or
	// DEL is plain; one with any of them is looked at byte by byte (tab and
	// newline are plain). Long texts (heredocs, payloads) are mostly plain.
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(text); i += 8 {
		// Indexing an 8-byte string needs no bounds checks: the compiler
		// makes the eight loads one (text[i+k] took a check each).
		b := text[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		del := w ^ 0x7f*lo
		if w&hi|(w-0x20*lo)&^w&hi|(del-lo)&^del&hi == 0 {
			continue
		}
		if !plainBytes(text[i : i+8]) {
			return false
		}
	}
	return plainBytes(text[i:])
}

func plainBytes(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x7f || c < 0x20 && c != '\t' && c != '\n' {
			return false
		}
	}
	return true
}
