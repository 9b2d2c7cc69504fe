package exec

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeRequest: any input either decodes to a request that
// re-validates consistently, or is an error; it never panics.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la"}`, `{"argv":["git","status"],"cwd":"sub","timeout":"5s"}`,
		`{"command":"x","timout":"1s"}`, `{"command":"cat","stdin":"hi","pty":true,"rows":10,"cols":40}`,
		`{"command":"a\u0000b"}`, `{"argv":"ls"}`, `{"command":"ls"} {}`, `[]`, `{"env":{"A":"1"},"command":"env"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeRequest(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "request: ") {
				t.Fatalf("error without the request prefix: %v", err)
			}
			return
		}
		if err := req.Validate(); err == nil && req.Command == "" && len(req.Argv) == 0 {
			t.Fatal("an empty request validated")
		}
	})
}

// FuzzCapture checks the head+tail saver against the naive answer: the
// first max/2 bytes and the last max-max/2, for any write pattern.
func FuzzCapture(f *testing.F) {
	f.Add([]byte("hello world, this is a long line of output"), uint16(10), uint8(3))
	f.Add([]byte("héllo wörld ✓✓✓ 日本語テキスト"), uint16(7), uint8(1))
	f.Add([]byte{0, 1, 2, 0xff, 0xfe}, uint16(2), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, max uint16, chunk uint8) {
		m := int(max%200) + 2
		c := newCapture(m)
		step := int(chunk)%17 + 1
		for i := 0; i < len(data); i += step {
			c.Write(data[i:min(i+step, len(data))])
		}
		res := c.result()
		if res.total != int64(len(data)) {
			t.Fatalf("total %d, want %d", res.total, len(data))
		}
		if len(data) <= m {
			if !bytes.Equal(res.kept, data) || res.omitted != 0 {
				t.Fatalf("kept %q omitted %d, want all of %q", res.kept, res.omitted, data)
			}
			return
		}
		head, tail := data[:m/2], data[len(data)-(m-m/2):]
		marker := fmt.Sprintf("\n…[%d bytes omitted]…\n", res.omitted)
		i := bytes.Index(res.kept, []byte(marker))
		if i < 0 {
			t.Fatalf("no marker in %q", res.kept)
		}
		gotHead, gotTail := res.kept[:i], res.kept[i+len(marker):]
		if !bytes.HasPrefix(head, gotHead) || len(head)-len(gotHead) > 3 ||
			!bytes.HasSuffix(tail, gotTail) || len(tail)-len(gotTail) > 3 {
			t.Fatalf("head %q tail %q, want cuts of %q and %q", gotHead, gotTail, head, tail)
		}
		if int64(len(gotHead)+len(gotTail))+res.omitted != int64(len(data)) {
			t.Fatal("kept + omitted != total")
		}
		if utf8.Valid(data) && !utf8.Valid(res.kept) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", res.kept)
		}
	})
}

// FuzzStripANSI: stripping never leaves an ESC and never grows the text.
func FuzzStripANSI(f *testing.F) {
	for _, s := range []string{"\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "a\r\nb", "\x1b(B\x1b=\x1b", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := stripANSI(s)
		if strings.ContainsRune(out, 0x1b) || len(out) > len(s) {
			t.Fatalf("stripANSI(%q) = %q", s, out)
		}
	})
}

// FuzzGlobMatch confirms the fast matcher against path.Match.
func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{{"*_TOKEN", "GITHUB_TOKEN"}, {"*SECRET*", "MY_SECRET_X"}, {"A*B*C", "AXBYC"}, {"*", ""}, {"**X", "X"}, {"AB*BA", "ABA"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if strings.ContainsAny(p+s, "/?[\\") {
			return
		}
		want, err := path.Match(p, s)
		if err != nil {
			return
		}
		if got := globMatch(p, s); got != want {
			t.Fatalf("globMatch(%q, %q) = %v, path.Match says %v", p, s, got, want)
		}
	})
}
