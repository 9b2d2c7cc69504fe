package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// editor splices text into (or out of) a settings file's JSON text.
type editor struct {
	text string
}

func (e editor) splice(start, end int, with string) string {
	return e.text[:start] + with + e.text[end:]
}

// install adds the entry under root.hooks[s.Event], creating either key
// when it is missing, in the indentation style of the file.
func (e editor) install(root *jnode, s SettingsSpec, agent, command string) (string, string, error) {
	if root.kind != '{' {
		return "", "", fmt.Errorf("the settings are not a JSON object")
	}
	hooks, _ := root.member("hooks")
	if hooks == nil {
		v := map[string]any{s.Event: []any{s.entry(command)}}
		return e.addMember(root, "hooks", v), "", nil
	}
	if hooks.val.kind != '{' {
		return "", "", fmt.Errorf("field hooks: want an object")
	}
	event, _ := hooks.val.member(s.Event)
	if event == nil {
		return e.addMember(hooks.val, s.Event, []any{s.entry(command)}), "", nil
	}
	if event.val.kind != '[' {
		return "", "", fmt.Errorf("field hooks.%s: want an array", s.Event)
	}
	for _, g := range event.val.elems {
		for _, c := range groupCommands(g, s) {
			if IsOurs(c.str, agent) {
				return e.text, fmt.Sprintf("already installed: %s (uninstall first to change it)", c.str), nil
			}
		}
	}
	return e.addElem(event.val, s.entry(command)), "", nil
}

// groupCommands are the command strings of one hooks.<event> element.
func groupCommands(g *jnode, s SettingsSpec) []*jnode {
	if s.Flat {
		if m, _ := g.member("command"); m != nil && m.val.kind == '"' {
			return []*jnode{m.val}
		}
		return nil
	}
	m, _ := g.member("hooks")
	if m == nil || m.val.kind != '[' {
		return nil
	}
	var out []*jnode
	for _, h := range m.val.elems {
		if c, _ := h.member("command"); c != nil && c.val.kind == '"' {
			out = append(out, c.val)
		}
	}
	return out
}

// uninstallOne removes one of our entries; ok is false when none is left.
// When the entry was the only child of hooks.<event> (and the event the
// only key of hooks), the keys go too if install created them, and only
// the entry if install filled a container that was there, empty, before.
func (e editor) uninstallOne(root *jnode, s SettingsSpec, agent string) (string, bool) {
	hooks, hi := root.member("hooks")
	if hooks == nil || hooks.val.kind != '{' {
		return "", false
	}
	event, ei := hooks.val.member(s.Event)
	if event == nil || event.val.kind != '[' {
		return "", false
	}
	arr := event.val
	for gi, g := range arr.elems {
		cmds := groupCommands(g, s)
		ours := 0
		for _, c := range cmds {
			if IsOurs(c.str, agent) {
				ours++
			}
		}
		switch {
		case ours == 0:
			continue
		case ours < len(cmds):
			inner, _ := g.member("hooks")
			for i, h := range inner.val.elems {
				if c, _ := h.member("command"); c != nil && IsOurs(c.val.str, agent) {
					return e.removeElem(inner.val, i), true
				}
			}
		case len(arr.elems) > 1:
			return e.removeElem(arr, gi), true
		case e.filled(arr, g.start, g.end):
			return e.unfill(arr, g.end), true
		case len(hooks.val.members) > 1:
			return e.removeMember(hooks.val, ei), true
		case e.filled(hooks.val, event.keyStart, event.val.end):
			return e.unfill(hooks.val, event.val.end), true
		case len(root.members) == 1 && e.filled(root, hooks.keyStart, hooks.val.end):
			return e.unfill(root, hooks.val.end), true
		default:
			return e.removeMember(root, hi), true
		}
	}
	return "", false
}

// filled reports whether the only child of n (spanning start..end) is one
// fillEmpty wrote into a container that was empty: in a multi-line file
// it starts on the bracket's line, in a one-line file a blank follows it.
// A container install created itself has neither.
func (e editor) filled(n *jnode, start, end int) bool {
	if e.pretty() {
		return !strings.Contains(e.text[n.start+1:start], "\n")
	}
	return end < len(e.text) && e.text[end] == ' '
}

// unfill takes the child fillEmpty wrote out of n, leaving what was
// between the brackets before.
func (e editor) unfill(n *jnode, end int) string {
	if !e.pretty() {
		end++ // the blank fillEmpty put after the child
	}
	return e.splice(n.start+1, end, "")
}

// pretty says the file spreads over lines (or is only "{}", which reads
// better spread once something is added).
func (e editor) pretty() bool {
	t := strings.TrimSpace(e.text)
	return strings.Contains(t, "\n") || t == "{}"
}

// removeElem cuts element i and the comma that joined it to a neighbour.
func (e editor) removeElem(arr *jnode, i int) string {
	el := arr.elems
	switch {
	case len(el) == 1:
		return e.splice(arr.start+1, arr.end-1, "")
	case i > 0:
		return e.splice(el[i-1].end, el[i].end, "")
	default:
		return e.splice(el[0].start, el[1].start, "")
	}
}

// removeMember cuts member i of obj and the comma that joined it.
func (e editor) removeMember(obj *jnode, i int) string {
	m := obj.members
	switch {
	case len(m) == 1:
		return e.splice(obj.start+1, obj.end-1, "")
	case i > 0:
		return e.splice(m[i-1].val.end, m[i].val.end, "")
	default:
		return e.splice(m[0].keyStart, m[1].keyStart, "")
	}
}

// addMember appends "key": v as the last member of obj.
func (e editor) addMember(obj *jnode, key string, v any) string {
	k, _ := json.Marshal(key)
	if len(obj.members) > 0 {
		last := obj.members[len(obj.members)-1]
		ind, pretty := e.childIndent(obj, last.keyStart)
		return e.splice(last.val.end, last.val.end, e.joiner(pretty, ind)+string(k)+": "+e.render(v, ind, pretty))
	}
	return e.fillEmpty(obj, func(ind string, pretty bool) string { return string(k) + ": " + e.render(v, ind, pretty) })
}

// addElem appends v as the last element of arr.
func (e editor) addElem(arr *jnode, v any) string {
	if len(arr.elems) > 0 {
		last := arr.elems[len(arr.elems)-1]
		ind, pretty := e.childIndent(arr, arr.elems[0].start)
		return e.splice(last.end, last.end, e.joiner(pretty, ind)+e.render(v, ind, pretty))
	}
	return e.fillEmpty(arr, func(ind string, pretty bool) string { return e.render(v, ind, pretty) })
}

func (e editor) joiner(pretty bool, ind string) string {
	if pretty {
		return ",\n" + ind
	}
	return ", "
}

// fillEmpty writes the first child of an empty object or array, right
// after the opening bracket and before whatever blanks or comments were
// inside, so that uninstall can tell it from a container it created (see
// filled) and give back the bytes that were there.
func (e editor) fillEmpty(n *jnode, child func(ind string, pretty bool) string) string {
	if !e.pretty() {
		return e.splice(n.start+1, n.start+1, child("", false)+" ")
	}
	return e.splice(n.start+1, n.start+1, child(e.lineIndent(n.start), true))
}

// childIndent is the indentation of the children of n, read from the line
// of the child at pos; pretty is false when children share the bracket's
// line (a compact file).
func (e editor) childIndent(n *jnode, pos int) (string, bool) {
	between := e.text[n.start+1 : pos]
	nl := strings.LastIndexByte(between, '\n')
	if nl < 0 {
		return "", false
	}
	return e.lineIndent(pos), true
}

// lineIndent is the blank run at the start of the line holding pos.
func (e editor) lineIndent(pos int) string {
	start := strings.LastIndexByte(e.text[:pos], '\n') + 1
	end := start
	for end < len(e.text) && (e.text[end] == ' ' || e.text[end] == '\t') {
		end++
	}
	return e.text[start:end]
}

// unit is the file's indentation step: the blank run of the first
// indented line, or two spaces.
func (e editor) unit() string {
	for _, line := range strings.Split(e.text, "\n") {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// render writes v as JSON at indentation ind (pretty) or on one line.
func (e editor) render(v any, ind string, pretty bool) string {
	if !pretty {
		b, _ := marshalNoEscape(v)
		return string(b)
	}
	b, _ := marshalNoEscape(v)
	var out bytes.Buffer
	if err := json.Indent(&out, b, ind, e.unit()); err != nil {
		return string(b)
	}
	return out.String()
}
