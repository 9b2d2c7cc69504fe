package exec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// capture keeps a stream's head and tail within a byte cap and counts what
// it dropped, as os/exec's prefixSuffixSaver does: memory is bounded by the
// cap however much the command writes. It is safe for concurrent use so
// that a PTY reader and the observation builder can share it.
type capture struct {
	mu    sync.Mutex
	max   int    // bytes kept in all, head plus tail
	head  []byte // the first max/2 bytes
	tail  []byte // ring of the last max-max/2 bytes, once the head is full
	pos   int    // next write position in tail once it is full
	total int64  // bytes seen
}

func newCapture(max int) *capture {
	if max < 2 {
		max = 2
	}
	return &capture{max: max}
}

// Write keeps p's bytes that belong to the head or the tail. It never fails.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	p = c.fill(&c.head, c.max/2, p)
	c.writeTail(p)
	return n, nil
}

// fill appends to *dst up to limit bytes and returns the rest of p.
func (c *capture) fill(dst *[]byte, limit int, p []byte) []byte {
	if room := limit - len(*dst); room > 0 {
		k := min(room, len(p))
		*dst = append(*dst, p[:k]...)
		p = p[k:]
	}
	return p
}

func (c *capture) writeTail(p []byte) {
	limit := c.max - c.max/2
	if len(p) >= limit {
		// Only the last limit bytes survive.
		c.tail = append(c.tail[:0], p[len(p)-limit:]...)
		c.pos = 0
		return
	}
	p = c.fill(&c.tail, limit, p)
	for len(p) > 0 {
		k := copy(c.tail[c.pos:], p)
		p = p[k:]
		c.pos = (c.pos + k) % limit
	}
}

// result is what a capture kept: the bytes (with the omission marker when
// something was dropped), the omitted count and the total seen.
type result struct {
	kept    []byte
	omitted int64
	total   int64
}

// result assembles head + marker + tail. Cuts are moved to UTF-8 rune
// boundaries so a truncated text stays valid text; the bytes moved count as
// omitted.
func (c *capture) result() result {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := make([]byte, 0, len(c.tail))
	tail = append(tail, c.tail[c.pos:]...)
	tail = append(tail, c.tail[:c.pos]...)
	kept := int64(len(c.head) + len(tail))
	if kept == c.total {
		return result{kept: append(append([]byte{}, c.head...), tail...), total: c.total}
	}
	head := trimRuneEnd(c.head)
	tail = trimRuneStart(tail)
	omitted := c.total - int64(len(head)+len(tail))
	var b bytes.Buffer
	b.Write(head)
	fmt.Fprintf(&b, "\n…[%d bytes omitted]…\n", omitted)
	b.Write(tail)
	return result{kept: b.Bytes(), omitted: omitted, total: c.total}
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of b (at most
// three bytes), leaving b alone when it is not text anyway.
func trimRuneEnd(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimRuneStart drops continuation bytes at the start of b (at most three).
func trimRuneStart(b []byte) []byte {
	n := min(3, len(b))
	for i := range n {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	if len(b) > n && !utf8.RuneStart(b[n]) {
		return b // not text: four continuation bytes in a row
	}
	return b[n:]
}

// isBinary reports whether kept output is not text: a NUL byte, or more
// than one in 32 bytes outside valid UTF-8, the way git and grep guess.
func isBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad, size := 0, len(b)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		b = b[n:]
	}
	return bad > 0 && bad*32 >= size
}

// binarySummary is what Text shows instead of binary output.
func binarySummary(b []byte, total int64) string {
	sum := sha256.Sum256(b)
	return "[binary output: " + strconv.FormatInt(total, 10) + " bytes, kept " +
		strconv.Itoa(len(b)) + " bytes sha256 " + hex.EncodeToString(sum[:8]) + "…]"
}

// ansiRE matches terminal escape sequences: CSI (colors, cursor motion),
// OSC (titles, hyperlinks; ended by BEL or ST), and two-byte escapes.
var ansiRE = lazyre.New(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()*+#%][ -~]|\x1b[@-Z\\-_=>78]|\x9b[0-?]*[ -/]*[@-~]`)

// stripANSI removes terminal escape sequences and carriage returns that
// only redraw a line, so the model reads what a person would see.
func stripANSI(s string) string {
	s = ansiRE.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\x1b", "") // a lone or unknown escape
	s = crRE.ReplaceAllString(s, "\n")
	if !strings.Contains(s, "\r") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		// A progress bar redraws its line after each \r: keep the last.
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			lines[i] = l[j+1:]
		}
	}
	return strings.Join(lines, "\n")
}

var crRE = lazyre.New(`\r+\n`)
