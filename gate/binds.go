package gate

import (
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	p "github.com/agentexec/agentexec/gate/programs"
)

// bindCheck: a container runner given a writable bind of a catastrophic
// host path (docker run -v /:/h IMG rm -rf /h) hands the host's system
// directories or a home to whatever the container runs, whose paths the
// blacklist reads as the container's (/h), never as the host's. The
// blacklist cannot resolve what that command does to the host, so yolo
// asks; a read-only bind (-v /:/host:ro) cannot be written through.
func (b *blChecker) bindCheck(bc *blCall) {
	bs := bc.prog.Binds
	if bs == nil {
		return
	}
	args := bc.args
	for i := 0; i < len(args); i++ {
		for _, v := range b.wordValues(args[i]) {
			name, val, attached := bindOption(bs, v)
			if name == "" {
				continue
			}
			vals := []string{val}
			if !attached && i+1 < len(args) {
				vals = b.wordValues(args[i+1])
			}
			for _, v := range vals {
				if pth := bindCatastrophe(b, bs, name, v); pth != "" {
					b.see("`%s` binds the host's %s into a container writable (`%s`), and what the container runs is not read as the host's paths", bc.c.Base, clipText(pth), clipText(args[i].Raw))
					return
				}
			}
		}
	}
}

// bindCatastrophe is the catastrophic host path a writable bind's value
// can name, "" when none. A source the blacklist cannot resolve is not
// one: the bind itself destroys nothing (as cp's unresolved target does
// not), and -v "$(pwd)":/src is how a project is handed to a container.
func bindCatastrophe(b *blChecker, bs *p.Binds, name, v string) string {
	src, ro := bindSource(bs, name, v)
	if src == "" || ro {
		return ""
	}
	for _, pth := range b.resolve(facts.Word{Value: src, Static: true, Raw: src}).paths {
		if catastrophic(pth) {
			return pth
		}
	}
	return ""
}

// wordValues are the static values a word may take (none for what the
// blacklist cannot expand).
func (b *blChecker) wordValues(w facts.Word) []string {
	switch {
	case w.Static:
		return []string{w.Value}
	case w.Node == nil:
		return nil
	}
	vals, _ := b.expand(w.Node)
	return vals
}

// bindOption reads one word as a bind option: its name (one of Volume or
// Mount, "" when it is none) and its value when attached.
func bindOption(bs *p.Binds, v string) (name, val string, attached bool) {
	if !strings.HasPrefix(v, "-") {
		return "", "", false
	}
	if long, ok := strings.CutPrefix(v, "--"); ok {
		n, val, has := strings.Cut(long, "=")
		for _, o := range append(append([]string(nil), bs.Volume...), bs.Mount...) {
			if len(o) > 1 && n == o {
				return o, val, has
			}
		}
		return "", "", false
	}
	for j := 1; j < len(v); j++ {
		for _, o := range bs.Volume {
			if len(o) == 1 && v[j] == o[0] {
				rest := strings.TrimPrefix(v[j+1:], "=")
				return o, rest, j+1 < len(v)
			}
		}
		if strings.IndexByte(bs.Bools, v[j]) < 0 {
			return "", "", false
		}
	}
	return "", "", false
}

// bindSource is the host path a bind's value names ("" for a named or
// anonymous volume) and whether the bind is read-only.
func bindSource(bs *p.Binds, name, v string) (src string, ro bool) {
	for _, m := range bs.Mount {
		if name != m {
			continue
		}
		bind := false
		for kv := range strings.SplitSeq(v, ",") {
			k, val, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "type":
				bind = val == "bind"
			case "source", "src":
				src = val
			case "readonly", "ro":
				ro = val == "" || val == "1" || strings.EqualFold(val, "true")
			}
		}
		if !bind {
			return "", false
		}
		return src, ro
	}
	src, rest, ok := strings.Cut(v, ":")
	if !ok || !(strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, ".")) {
		return "", false // a named volume, or a container path alone
	}
	_, opts, _ := strings.Cut(rest, ":")
	for o := range strings.SplitSeq(opts, ",") {
		if o == "ro" || o == "readonly" {
			ro = true
		}
	}
	return src, ro
}
