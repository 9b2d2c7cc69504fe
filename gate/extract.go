package gate

import (
	"path"
	"slices"
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
)

// accountDirs are the directories that hold the account files, and their
// ancestor: an archive extracted into one may replace them.
var accountDirs = []string{"/", "/etc", "/etc/sudoers.d"}

// extractCheck: an archiver extracting into a directory that holds the
// account files (tar -xf a.tar -C /, unzip a.zip -d /etc, cd / && tar -x…)
// writes whatever the archive holds there — /etc/passwd or /etc/sudoers
// among it, for all the text shows. Members the text names are checked as
// the files they become; with none named, what is written cannot be
// resolved, so yolo asks.
func (b *blChecker) extractCheck(bc *blCall) *BlacklistEntry {
	x := bc.prog.Extracts
	if x == nil || !extracting(bc) {
		return nil
	}
	into, _, members := extraction(bc)
	var dirs []string
	for _, w := range into {
		if !w.Static {
			b.see("`%s` extracts into a directory computed at run time", bc.c.Base)
			return nil
		}
		dirs = append(dirs, b.resolve(w).paths...)
	}
	members = members[min(x.Members, len(members)):]
	for _, d := range dirs {
		if !isAccountDir(d) {
			continue
		}
		if len(members) == 0 {
			b.see("`%s` extracts an archive into %s, where it may replace the account files: what it writes is not in the text", bc.c.Base, d)
			return nil
		}
		var ws []facts.Word
		for _, m := range members {
			if !m.Static {
				b.see("`%s` extracts a member computed at run time into %s", bc.c.Base, d)
				return nil
			}
			if strings.ContainsAny(m.Value, "*?[") {
				// unzip's and cpio's members are patterns they match
				// themselves (unzip a.zip '*' -d / is every member).
				b.see("`%s` extracts the members matching %s into %s", bc.c.Base, m.Raw, d)
				return nil
			}
			ws = append(ws, facts.Word{Value: path.Join(d, m.Value), Static: true, Raw: m.Raw})
		}
		if e := b.accountTargets(bc.c, ws); e != nil {
			return e
		}
	}
	return nil
}

// extraction reads an extracting archiver's command line: the directories
// it writes into (its Dir options' values, given in tar's old-style key
// too: tar xfC A.tar DIR; "." when none is given), the archive it reads
// (its Archive File options' values, or the first operand when the
// members start after it, as unzip's do; nil when standard input is the
// archive), and its operands.
func extraction(bc *blCall) (into []facts.Word, archive *facts.Word, members []facts.Word) {
	x := bc.prog.Extracts
	for _, f := range bc.parsed.Found {
		if !f.HasValue {
			continue
		}
		w := facts.Word{Value: f.Value, Static: f.ValueStatic, Raw: f.Value}
		if slices.Contains(x.Dir, f.Name) {
			into = append(into, w)
		}
		if a := bc.prog.Archive; a != nil && slices.Contains(a.File, f.Name) {
			archive = &w
		}
	}
	for _, a := range bc.args {
		for _, pre := range x.Attached {
			if a.Static && strings.HasPrefix(a.Value, pre) {
				into = append(into, facts.Word{Value: a.Value[len(pre):], Static: true, Raw: a.Raw})
			}
		}
	}
	members = bc.operands
	if len(x.DirFirst) > 0 && bc.has(x.DirFirst...) && len(members) > 0 {
		into, members = append(into, members[0]), members[1:] // cpio -p DIR
	}
	if x.Members > 0 && len(members) > 0 && archive == nil {
		archive = &members[0]
	}
	if len(into) == 0 {
		into = []facts.Word{{Value: ".", Static: true, Raw: "."}}
	}
	return into, archive, members
}

// extracting reports an archiver call that extracts.
func extracting(bc *blCall) bool {
	x := bc.prog.Extracts
	if len(x.Commands) > 0 {
		return len(bc.operands) > 0 && bc.operands[0].Static && slices.Contains(x.Commands, bc.operands[0].Value)
	}
	if len(x.Modes) == 0 {
		return !bc.defusedBy(bc.prog.Defuses)
	}
	return bc.has(x.Modes...)
}

func isAccountDir(d string) bool {
	d = cleanPath(d)
	for _, a := range accountDirs {
		if d == a {
			return true
		}
	}
	return false
}

// archiveCheck: the archive an archiver writes (tar -cf F, zip F …) is
// opened as a redirection's target is — a device or an account file there
// is refused.
func (b *blChecker) archiveCheck(bc *blCall) *BlacklistEntry {
	a := bc.prog.Archive
	if a == nil || bc.defusedBy(bc.prog.Defuses) {
		return nil
	}
	var ws []facts.Word
	if a.First && len(bc.operands) > 0 {
		ws = append(ws, bc.operands[0])
	}
	if bc.has(a.Creates...) {
		for _, f := range bc.parsed.Found {
			for _, n := range a.File {
				if f.Name == n && f.HasValue && f.ValueStatic {
					ws = append(ws, facts.Word{Value: f.Value, Static: true, Raw: f.Value})
				}
			}
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return b.deviceOrAccount(bc.c, ws)
}

// copiedInto: a copy or move into a directory that holds the account
// files (cp /tmp/passwd /etc/, mv -t /etc x, rsync -a x/ /etc/) writes
// each source there under its own name — an account file by that name is
// refused — and, when whole trees are copied (tree: cp -r, rsync -a, any
// mv), a directory's contents (x/., x/ to rsync, -T, or a source named
// like sudoers.d) land there unseen, so yolo asks.
func (b *blChecker) copiedInto(bc *blCall, srcs []facts.Word, dir facts.Word, tree bool) *BlacklistEntry {
	if !dir.Static {
		return nil
	}
	var into []string
	for _, d := range b.resolve(dir).paths {
		if isAccountDir(d) {
			into = append(into, cleanPath(d))
		}
	}
	if len(into) == 0 {
		return nil
	}
	contents := bc.has("T", "no-target-directory")
	for _, s := range srcs {
		if !s.Static {
			continue
		}
		v := s.Value
		spread := contents || strings.HasSuffix(v, "/.") || bc.prog.SlashContents && strings.HasSuffix(v, "/")
		for _, d := range into {
			name := path.Join(d, path.Base(v))
			switch {
			case tree && spread:
				b.see("`%s` copies the contents of %s into %s, where they may replace the account files", bc.c.Base, clipText(v), d)
				return nil
			case accountFile(name):
				return blEntry("overwrite-account-files")
			case tree && isAccountDir(name):
				b.see("`%s` copies %s into %s, where it may replace the account files", bc.c.Base, clipText(v), name)
				return nil
			}
		}
	}
	return nil
}
