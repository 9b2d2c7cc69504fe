package main

import (
	"flag"
	"slices"
	"testing"
)

func TestJoinNetworkValue(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	fs.StringVar(&f.command, "c", "", "")
	fs.BoolVar(&f.json, "json", false, "")
	cases := []struct {
		args  []string
		open  bool
		hosts []string
		rest  []string
	}{
		{[]string{"--network", "-c", "true"}, true, nil, nil},
		{[]string{"--network", "--", "ls"}, true, nil, []string{"ls"}},
		{[]string{"--network", "registry.npmjs.org,*.github.com", "-c", "true"}, false, []string{"registry.npmjs.org", "*.github.com"}, nil},
		{[]string{"--network=pypi.org", "--", "pip"}, false, []string{"pypi.org"}, []string{"pip"}},
		{[]string{"--network", "on", "--json", "-c", "x"}, true, nil, nil},
		{[]string{"-c", "--network", "--json"}, false, nil, nil}, // "--network" is -c's value
		{[]string{"--json", "--", "curl", "--network", "x"}, false, nil, []string{"curl", "--network", "x"}},
		{[]string{"ls", "--network", "x"}, false, nil, []string{"ls", "--network", "x"}},
	}
	for _, c := range cases {
		f.network = networkFlag{}
		if err := fs.Parse(joinNetworkValue(fs, c.args)); err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if f.network.open != c.open || !slices.Equal(f.network.hosts, c.hosts) || !slices.Equal(fs.Args(), c.rest) && len(c.rest)+len(fs.Args()) > 0 {
			t.Errorf("%q: open=%v hosts=%q args=%q, want %v %q %q", c.args, f.network.open, f.network.hosts, fs.Args(), c.open, c.hosts, c.rest)
		}
	}
	f.network = networkFlag{}
	if err := fs.Parse(joinNetworkValue(fs, []string{"--network", "http://x.example/"})); err == nil {
		t.Error("a URL as a host: no error")
	}
}
