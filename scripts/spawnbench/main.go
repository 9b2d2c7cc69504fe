// Command spawnbench times whole processes, interleaved: each round starts
// every variant once, in turn, so that a busy machine's drift falls on all
// of them alike. It prints, per variant, the median, mean and p90 wall time
// of start-to-exit and the ratio of its median to the first variant's.
//
// Usage:
//
//	go run ./scripts/spawnbench [-n 200] [-warm 10] [-dir D] 'name=prog arg...' ...
//
// A variant's command is split on blanks (no quoting): the scripts pass
// simple argv lists. stdout and stderr go to /dev/null; a variant that exits
// non-zero is reported and stops the run, since its figures would mean
// nothing.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

type variant struct {
	name string
	argv []string
	runs []time.Duration
}

func main() {
	n := flag.Int("n", 200, "measured rounds")
	warm := flag.Int("warm", 10, "unmeasured rounds first (page cache, CPU frequency)")
	dir := flag.String("dir", "", "working directory of every run")
	flag.Parse()
	vs, err := parse(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "spawnbench:", err)
		os.Exit(2)
	}
	for r := 0; r < *warm+*n; r++ {
		for _, v := range vs {
			d, err := once(v.argv, *dir)
			if err != nil {
				fmt.Fprintf(os.Stderr, "spawnbench: %s: %v\n", v.name, err)
				os.Exit(1)
			}
			if r >= *warm {
				v.runs = append(v.runs, d)
			}
		}
	}
	base := median(vs[0].runs)
	for _, v := range vs {
		m := median(v.runs)
		fmt.Printf("%-24s median %8.0f µs  mean %8.0f µs  p90 %8.0f µs  ratio %5.2f\n",
			v.name, us(m), us(mean(v.runs)), us(pct(v.runs, 0.9)), float64(m)/float64(base))
	}
}

func parse(args []string) ([]*variant, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no variants: give 'name=prog arg...' arguments")
	}
	var vs []*variant
	for _, a := range args {
		name, cmd, ok := strings.Cut(a, "=")
		argv := strings.Fields(cmd)
		if !ok || name == "" || len(argv) == 0 {
			return nil, fmt.Errorf("variant %q: want name=prog arg...", a)
		}
		vs = append(vs, &variant{name: name, argv: argv})
	}
	return vs, nil
}

func once(argv []string, dir string) (time.Duration, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir = dir
	start := time.Now()
	if out, err := c.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return time.Since(start), nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func median(ds []time.Duration) time.Duration { return pct(ds, 0.5) }

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

func mean(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t / time.Duration(len(ds))
}
