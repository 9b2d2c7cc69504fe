package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// benchSize is the download of the bar: 100 MB.
const benchSize = 100 << 20

// BenchmarkDownload downloads 100 MB from a loopback server directly and
// through the proxy (plain HTTP, and HTTPS-style through a CONNECT
// tunnel carrying the same bytes); compare the MB/s columns.
// scripts/bench-net.sh runs it next to the end-to-end comparison.
func BenchmarkDownload(b *testing.B) {
	block := make([]byte, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(benchSize))
		for range benchSize / len(block) {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	p := port(&testing.T{}, srv.URL)
	run := func(b *testing.B, c *http.Client, u string) {
		b.SetBytes(benchSize)
		for b.Loop() {
			resp, err := c.Get(u)
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n != benchSize {
				b.Fatalf("got %d bytes", n)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		run(b, &http.Client{Transport: &http.Transport{}}, "http://127.0.0.1:"+p+"/")
	})
	b.Run("proxy-http", func(b *testing.B) {
		f := newFixture(&testing.T{}, rules(&testing.T{}, []string{"allowed.test"}, nil, true))
		defer f.p.Close()
		run(b, f.client(nil), "http://allowed.test:"+p+"/")
	})
	b.Run("proxy-connect", func(b *testing.B) {
		f := newFixture(&testing.T{}, rules(&testing.T{}, []string{"allowed.test"}, nil, true))
		defer f.p.Close()
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := net.Dial("tcp", f.addr)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
			if err != nil || resp.StatusCode != 200 || br.Buffered() > 0 {
				c.Close()
				return nil, fmt.Errorf("CONNECT: %v %v", resp, err)
			}
			return c, nil
		}
		run(b, &http.Client{Transport: &http.Transport{DialContext: dial}}, "http://allowed.test:"+p+"/")
	})
}
