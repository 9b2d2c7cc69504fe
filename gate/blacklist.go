package gate

import (
	"fmt"
	"path"
	"strings"

	"github.com/agentexec/agentexec/internal/lazyre"
	"github.com/agentexec/agentexec/shellcfg"
	"mvdan.cc/sh/v3/syntax"
)

// The blacklist denies catastrophic commands in every mode, over any allow
// rule. It is matched on the parsed AST of the text and of shellcfg's
// normalized copy, walking every command in every nested position
// (substitutions, functions, subshells, compound bodies) and into the
// payloads of bash -c / sh -c / su -c / eval (recursively, to
// maxPayloadDepth). It is the one place the gate unwraps launcherTable (sudo,
// env, nice, timeout, xargs, command, exec, nohup, time, …): to deny, never
// to allow. Words are expanded where static (r''m, \rm, "/", /bin/rm), and
// flags are read in any order, clustered or split.
//
// Sharp edge: a word that cannot be expanded statically ($x, $(…),
// brace expansion) matches no entry. Such text classifies unknown, which
// no mode but yolo runs unasked — and yolo asks for a dynamic command name.

// maxPayloadDepth bounds how deep shell -c / eval payloads are re-parsed.
const maxPayloadDepth = 8

// Built-in entries, by name.
var blacklistEntries = map[string]string{
	"recursive-delete-root":   "recursively deletes the filesystem root, the home directory or a top-level system directory",
	"no-preserve-root":        "rm --no-preserve-root exists only to delete the filesystem root",
	"make-filesystem":         "creating or wiping a filesystem destroys every file on the device",
	"partition-device":        "rewriting a disk's partition table destroys its filesystems",
	"raw-device-write":        "writing raw bytes onto a block device destroys its filesystems",
	"fork-bomb":               "a function that spawns itself in a pipeline or in the background exhausts the process table",
	"recursive-chmod-root":    "recursively changing ownership or permissions of / or a system directory breaks the system",
	"power-off":               "shutting down, rebooting or halting the machine ends every session on it",
	"kill-all-processes":      "kill with pid -1 signals every process the user may signal",
	"download-to-shell":       "piping a download into a shell runs unreviewed code from the network",
	"overwrite-account-files": "overwriting /etc/passwd, /etc/shadow, /etc/group or sudoers can lock everyone out or grant root",
}

func blEntry(name string) *BlacklistEntry {
	return &BlacklistEntry{Name: name, Reason: blacklistEntries[name]}
}

// blacklistExtra is a compiled user entry.
type blacklistExtra struct {
	BlacklistExtra
	rule Rule
}

// compileExtras validates blacklist.extra entries.
func compileExtras(extras []BlacklistExtra, source string) ([]blacklistExtra, error) {
	var out []blacklistExtra
	for i, e := range extras {
		if strings.TrimSpace(e.Name) == "" || strings.TrimSpace(e.Pattern) == "" {
			return nil, fmt.Errorf("blacklist.extra[%d]: name and pattern are required", i)
		}
		text := e.Pattern
		if n, _, ok := cutTool(strings.TrimSpace(text)); !ok || !isShellTool(n) {
			text = "Bash(" + text + ")"
		}
		r, ok, err := ParseRule(text, Deny, source)
		if err != nil || !ok {
			return nil, fmt.Errorf("blacklist.extra[%d] %q: bad pattern %q: %v", i, e.Name, e.Pattern, err)
		}
		if e.Reason == "" {
			e.Reason = "listed in the policy's blacklist"
		}
		out = append(out, blacklistExtra{BlacklistExtra: e, rule: r})
	}
	return out, nil
}

// checkBlacklist returns the entry text hits, or nil. parsed, when not
// nil, is text already parsed by parseBounded. segs are the rule
// segments, which user entries are matched against; canon are the
// canonical spellings of every command found in the AST.
func checkBlacklist(text string, parsed *syntax.File, segs, canon []string, extras []blacklistExtra) *BlacklistEntry {
	for _, v := range blVariants(text) {
		f, ok := parsed, parsed != nil && v == text
		if !ok {
			f, ok = parseBounded(v)
		}
		if ok {
			if e := (&blWalker{src: v}).file(f); e != nil {
				return e
			}
			continue
		}
		for _, seg := range segs {
			if e := blacklistFallback(seg); e != nil {
				return e
			}
		}
	}
	return checkExtras(extras, append(append([]string(nil), segs...), canon...))
}

// variants are the texts the blacklist parses: the text and its
// normalized copy when they differ.
func blVariants(text string) []string {
	if n := shellcfg.Normalize(text); n != text {
		return []string{text, n}
	}
	return []string{text}
}

func checkExtras(extras []blacklistExtra, cands []string) *BlacklistEntry {
	for _, e := range extras {
		for _, c := range cands {
			if e.rule.Match(normalizeBlanks(c)) {
				return &BlacklistEntry{Name: e.Name, Reason: e.Reason}
			}
		}
	}
	return nil
}

// blacklistFallback checks a segment that does not parse: its blank
// separated fields with quotes removed. It can only deny.
func blacklistFallback(seg string) *BlacklistEntry {
	if f, ok := parseBounded(seg); ok {
		return (&blWalker{src: seg}).file(f)
	}
	var argv []blArg
	for _, w := range strings.Fields(shellcfg.Normalize(seg)) {
		v := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(w)
		argv = append(argv, blArg{val: v, static: true, raw: w})
	}
	return (&blWalker{}).argv(argv)
}

// blArg is one word of a command as the blacklist sees it.
type blArg struct {
	val    string // the static value, when static
	static bool
	raw    string // the source text
	word   *syntax.Word
}

// blWalker walks one parsed text.
type blWalker struct {
	src   string
	depth int
	seen  map[*syntax.BinaryCmd]bool // pipe nodes already checked as part of a chain
}

func (b *blWalker) file(f *syntax.File) (hit *BlacklistEntry) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if hit == nil {
			hit = b.node(n)
		}
		return hit == nil
	})
	return hit
}

// node checks one AST node by kind.
func (b *blWalker) node(n syntax.Node) *BlacklistEntry {
	switch n := n.(type) {
	case *syntax.Stmt:
		return b.redirects(n.Redirs)
	case *syntax.CallExpr:
		args := b.args(n.Args)
		if e := b.argv(args); e != nil {
			return e
		}
		if lenient, ok := localeLenient(args); ok {
			// $"rm" is rm to the blacklist (stricter), as to deny rules.
			return b.argv(lenient)
		}
		return nil
	case *syntax.BinaryCmd:
		return b.pipe(n)
	case *syntax.FuncDecl:
		return forkBomb(n)
	}
	return nil
}

func (b *blWalker) args(words []*syntax.Word) []blArg {
	out := make([]blArg, 0, len(words))
	for _, w := range words {
		v, ok := staticWord(w)
		out = append(out, blArg{val: v, static: ok, raw: b.source(w), word: w})
	}
	return out
}

func (b *blWalker) source(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(b.src) || s > e {
		return ""
	}
	return b.src[s:e]
}

// argv checks one command and, unwrapped, the command it launches.
func (b *blWalker) argv(argv []blArg) *BlacklistEntry {
	for i := 0; i < 16 && len(argv) > 0; i++ {
		if e := b.command(argv); e != nil {
			return e
		}
		next, ok := unwrapLauncher(argv)
		if !ok {
			return nil
		}
		argv = next
	}
	return nil
}

// command checks argv against every built-in entry.
func (b *blWalker) command(argv []blArg) *BlacklistEntry {
	name := blName(argv[0])
	args := argv[1:]
	if e := b.payload(name, args); e != nil {
		return e
	}
	checks := []func(string, []blArg) *BlacklistEntry{
		rmCheck, findCheck, mkfsCheck, partitionCheck, ddCheck, shredCheck, chmodCheck,
		powerCheck, killCheck, accountFileCheck, deviceCopyCheck,
	}
	for _, c := range checks {
		if e := c(name, args); e != nil {
			return e
		}
	}
	return b.shellFromDownload(name, args)
}

// cmdName is a command word's basename for matching: /usr/bin/rm is rm.
func blName(a blArg) string {
	if !a.static {
		return ""
	}
	return path.Base(a.val)
}

// rmCheck: recursive removal of a catastrophic target, or
// --no-preserve-root.
func rmCheck(name string, args []blArg) *BlacklistEntry {
	if name != "rm" {
		return nil
	}
	flags, operands := splitFlags(args)
	if flags["--no-preserve-root"] {
		return blEntry("no-preserve-root")
	}
	if !(flags["r"] || flags["R"] || flags["--recursive"]) {
		return nil
	}
	for _, o := range operands {
		if catastrophicTarget(o) {
			return blEntry("recursive-delete-root")
		}
	}
	return nil
}

// splitFlags reads options before "--": short clusters count letter by
// letter ("-rf" sets r and f), long options by name (value cut at '=').
// Non-static words count as operands, never as flags.
func splitFlags(args []blArg) (map[string]bool, []blArg) {
	flags := map[string]bool{}
	var operands []blArg
	done := false
	for _, a := range args {
		switch {
		case done || !a.static || !strings.HasPrefix(a.val, "-") || a.val == "-":
			operands = append(operands, a)
		case a.val == "--":
			done = true
		case strings.HasPrefix(a.val, "--"):
			n, _, _ := strings.Cut(a.val, "=")
			flags[n] = true
		default:
			for _, c := range a.val[1:] {
				flags[string(c)] = true
			}
		}
	}
	return flags, operands
}

// systemDirs are the top-level directories whose loss breaks the system.
var systemDirs = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true,
	"/lib": true, "/lib32": true, "/lib64": true, "/libx32": true, "/media": true,
	"/mnt": true, "/opt": true, "/proc": true, "/root": true, "/run": true,
	"/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true,
	"/snap": true, "/nix": true, "/boot/efi": true, "/usr/bin": true,
	"/usr/lib": true, "/usr/local": true, "/usr/sbin": true, "/var/lib": true,
}

var homeForms = map[string]bool{
	"~": true, "~/": true, "~/*": true, "~/.": true, "~/.*": true,
	"$HOME": true, "$HOME/": true, "$HOME/*": true, "$HOME/.": true, "$HOME/.*": true,
}

// catastrophicTarget reports whether an rm/chmod operand names /, /*, the
// home directory or a system directory (with or without a trailing / or
// /*), however it is quoted.
func catastrophicTarget(a blArg) bool {
	raw := strings.NewReplacer(`"`, "", `'`, "", "${HOME}", "$HOME").Replace(a.raw)
	if homeForms[raw] {
		return true
	}
	v := raw
	if a.static {
		v = a.val
	}
	if !strings.HasPrefix(v, "/") {
		return false
	}
	v = strings.TrimSuffix(strings.TrimSuffix(v, "*"), "/")
	if v == "" || strings.Trim(v, "/.*") == "" {
		return true
	}
	return systemDirs[path.Clean(v)]
}

// findCheck: find starting at a catastrophic path that deletes what it
// finds (-delete, or -exec/-execdir rm).
func findCheck(name string, args []blArg) *BlacklistEntry {
	if name != "find" {
		return nil
	}
	root, del := false, false
	for i, a := range args {
		switch {
		case a.val == "-delete":
			del = true
		case (a.val == "-exec" || a.val == "-execdir" || a.val == "-ok" || a.val == "-okdir") && i+1 < len(args):
			n := blName(args[i+1])
			del = del || n == "rm" || n == "shred"
		case !strings.HasPrefix(a.val, "-") && catastrophicTarget(a):
			root = true
		}
	}
	if root && del {
		return blEntry("recursive-delete-root")
	}
	return nil
}

// deviceCopyCheck: tee, cp or cat-style copies onto a block device.
func deviceCopyCheck(name string, args []blArg) *BlacklistEntry {
	_, operands := splitFlags(args)
	switch name {
	case "tee":
		for _, o := range operands {
			if o.static && isBlockDevice(o.val) {
				return blEntry("raw-device-write")
			}
		}
	case "cp", "mv", "install", "rsync", "pv":
		if n := len(operands); n > 1 && operands[n-1].static && isBlockDevice(operands[n-1].val) {
			return blEntry("raw-device-write")
		}
	}
	return nil
}

func mkfsCheck(name string, _ []blArg) *BlacklistEntry {
	if strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "wipefs" || name == "mkswap" {
		return blEntry("make-filesystem")
	}
	return nil
}

var partitioners = map[string]bool{"fdisk": true, "sfdisk": true, "cfdisk": true, "parted": true, "gdisk": true, "sgdisk": true}

// partitionCheck: a partitioner given a device, unless it only lists.
func partitionCheck(name string, args []blArg) *BlacklistEntry {
	if !partitioners[name] {
		return nil
	}
	dev, list := false, false
	for _, a := range args {
		switch {
		case a.val == "-l" || a.val == "--list" || a.val == "print" || a.val == "-p" || a.val == "--print":
			list = true
		case strings.HasPrefix(a.val, "/dev/"):
			dev = true
		}
	}
	if dev && !list {
		return blEntry("partition-device")
	}
	return nil
}

// blockDevice matches the device nodes of disks and partitions.
var blockDevice = lazyre.New(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|sr|mapper/|disk/by-)`)

func isBlockDevice(v string) bool { return blockDevice.MatchString(path.Clean(v)) }

func ddCheck(name string, args []blArg) *BlacklistEntry {
	if name != "dd" {
		return nil
	}
	for _, a := range args {
		if of, ok := strings.CutPrefix(a.val, "of="); ok && a.static {
			if isBlockDevice(of) {
				return blEntry("raw-device-write")
			}
			if accountFile(of) {
				return blEntry("overwrite-account-files")
			}
		}
	}
	return nil
}

func shredCheck(name string, args []blArg) *BlacklistEntry {
	if name != "shred" && name != "blkdiscard" {
		return nil
	}
	for _, a := range args {
		if isBlockDevice(a.val) || (name == "blkdiscard" && strings.HasPrefix(a.val, "/dev/")) {
			return blEntry("raw-device-write")
		}
	}
	return nil
}

func chmodCheck(name string, args []blArg) *BlacklistEntry {
	if name != "chmod" && name != "chown" && name != "chgrp" {
		return nil
	}
	flags, operands := splitFlags(args)
	if !(flags["R"] || flags["--recursive"]) {
		return nil
	}
	for _, o := range operands {
		if catastrophicTarget(o) {
			return blEntry("recursive-chmod-root")
		}
	}
	return nil
}

var powerCommands = map[string]bool{"shutdown": true, "reboot": true, "halt": true, "poweroff": true}

func powerCheck(name string, args []blArg) *BlacklistEntry {
	switch {
	case powerCommands[name]:
		return blEntry("power-off")
	case (name == "init" || name == "telinit") && len(args) > 0 && (args[0].val == "0" || args[0].val == "6"):
		return blEntry("power-off")
	case name == "systemctl":
		for _, a := range args {
			switch a.val {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot":
				return blEntry("power-off")
			}
		}
	}
	return nil
}

// killCheck: a pid of -1 after the signal option (kill -9 -1, kill -KILL
// -1, kill -s KILL -1, kill -- -1).
func killCheck(name string, args []blArg) *BlacklistEntry {
	if name != "kill" && name != "pkill" && name != "killall" {
		return nil
	}
	for i, a := range args {
		if a.val != "-1" {
			continue
		}
		if i > 0 || name != "kill" {
			return blEntry("kill-all-processes")
		}
	}
	return nil
}

// accountFiles are the files whose overwrite locks users out or grants root.
var accountFiles = map[string]bool{
	"/etc/passwd": true, "/etc/shadow": true, "/etc/group": true,
	"/etc/gshadow": true, "/etc/sudoers": true,
}

func accountFile(v string) bool {
	v = path.Clean(v)
	return accountFiles[v] || strings.HasPrefix(v, "/etc/sudoers.d/")
}

// accountFileCheck: tee onto, copy, move, link, truncate or remove an
// account file.
func accountFileCheck(name string, args []blArg) *BlacklistEntry {
	_, operands := splitFlags(args)
	switch name {
	case "tee", "truncate", "rm", "shred", "unlink":
		for _, o := range operands {
			if o.static && accountFile(o.val) {
				return blEntry("overwrite-account-files")
			}
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		if n := len(operands); n > 0 && operands[n-1].static && accountFile(operands[n-1].val) {
			return blEntry("overwrite-account-files")
		}
	}
	return nil
}

// redirects checks output redirections onto block devices and account
// files.
func (b *blWalker) redirects(rs []*syntax.Redirect) *BlacklistEntry {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		default:
			continue
		}
		v, ok := staticWord(r.Word)
		if !ok {
			continue
		}
		if isBlockDevice(v) {
			return blEntry("raw-device-write")
		}
		if accountFile(v) {
			return blEntry("overwrite-account-files")
		}
	}
	return nil
}

var downloaders = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true}

var interpreterRe = lazyre.New(`^(sh|bash|zsh|dash|ksh|mksh|ash|fish|busybox|python[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node[0-9.]*|nodejs|php[0-9.]*|pwsh|powershell|cmd)$`)

func isShellOrInterp(name string) bool { return interpreterRe.MatchString(name) }

// pipe: a download in a pipeline feeding, further right, a shell that
// reads its script from standard input. Each chain of pipes is flattened
// once, at its top node, and its inner nodes are skipped, so the check
// stays linear in the pipeline's length.
func (b *blWalker) pipe(c *syntax.BinaryCmd) *BlacklistEntry {
	elems := b.pipeChain(c)
	downloaded := false
	for _, e := range elems {
		if downloaded && b.stdinShell(e) {
			return blEntry("download-to-shell")
		}
		downloaded = downloaded || b.downloads(e)
	}
	return nil
}

// pipeChain returns the elements of the pipeline c heads, left to right,
// or nil when c is no pipe or belongs to a chain already seen.
func (b *blWalker) pipeChain(c *syntax.BinaryCmd) []*syntax.Stmt {
	if !isPipe(c) || b.seen[c] {
		return nil
	}
	if b.seen == nil {
		b.seen = map[*syntax.BinaryCmd]bool{}
	}
	return b.flattenPipe(c)
}

func (b *blWalker) flattenPipe(c *syntax.BinaryCmd) []*syntax.Stmt {
	b.seen[c] = true
	return append(b.pipeSide(c.X), b.pipeSide(c.Y)...)
}

func (b *blWalker) pipeSide(s *syntax.Stmt) []*syntax.Stmt {
	if n, ok := s.Cmd.(*syntax.BinaryCmd); ok && isPipe(n) && len(s.Redirs) == 0 && !s.Negated {
		return b.flattenPipe(n)
	}
	return []*syntax.Stmt{s}
}

func isPipe(c *syntax.BinaryCmd) bool { return c.Op == syntax.Pipe || c.Op == syntax.PipeAll }

// downloads reports whether any command in n is a downloader.
func (b *blWalker) downloads(n syntax.Node) (found bool) {
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && !found {
			found = b.anyUnwrapped(b.args(c.Args), func(name string, _ []blArg) bool { return downloaders[name] })
		}
		return !found
	})
	return found
}

// stdinShell reports whether the first command of stmt (after launcherTable)
// is a shell or interpreter that reads its program from standard input:
// no script operand, or -s / - .
func (b *blWalker) stdinShell(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && !found {
			found = b.anyUnwrapped(b.args(c.Args), readsStdin)
		}
		return !found
	})
	return found
}

func readsStdin(name string, args []blArg) bool {
	if !isShellOrInterp(name) {
		return false
	}
	for _, a := range args {
		if a.val == "-s" || a.val == "-" || a.val == "--" {
			return true
		}
		if !a.static || !strings.HasPrefix(a.val, "-") {
			return false
		}
		if a.val == "-c" || a.val == "-e" || a.val == "-m" {
			return false
		}
	}
	return true
}

// anyUnwrapped applies pred to argv and to every command it launches.
func (b *blWalker) anyUnwrapped(argv []blArg, pred func(string, []blArg) bool) bool {
	for i := 0; i < 16 && len(argv) > 0; i++ {
		if pred(blName(argv[0]), argv[1:]) {
			return true
		}
		next, ok := unwrapLauncher(argv)
		if !ok {
			return false
		}
		argv = next
	}
	return false
}

// shellFromDownload: a shell, source or eval whose argument is a
// substitution that downloads: bash <(curl …), sh -c "$(curl …)".
func (b *blWalker) shellFromDownload(name string, args []blArg) *BlacklistEntry {
	if !isShellOrInterp(name) && name != "eval" && name != "source" && name != "." {
		return nil
	}
	for _, a := range args {
		if a.word != nil && b.downloads(a.word) {
			return blEntry("download-to-shell")
		}
	}
	return nil
}

// payload re-parses the script of sh -c, su -c and eval.
func (b *blWalker) payload(name string, args []blArg) *BlacklistEntry {
	script, ok := payloadText(name, args)
	if !ok || b.depth >= maxPayloadDepth {
		return nil
	}
	for _, v := range blVariants(script) {
		if f, ok := parseBounded(v); ok {
			if e := (&blWalker{src: v, depth: b.depth + 1}).file(f); e != nil {
				return e
			}
		} else if e := blacklistFallback(v); e != nil {
			return e
		}
	}
	return nil
}

// payloadText returns the script a shell -c, su -c or eval runs, when
// static.
func payloadText(name string, args []blArg) (string, bool) {
	if name == "eval" {
		var parts []string
		for _, a := range args {
			if !a.static {
				return "", false
			}
			parts = append(parts, a.val)
		}
		return strings.Join(parts, " "), len(parts) > 0
	}
	if name == "watch" {
		return watchPayload(args)
	}
	if !isShellOrInterp(name) && name != "su" && name != "script" && name != "flock" {
		return "", false
	}
	for i, a := range args {
		if !a.static || !strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "--") {
			continue
		}
		if strings.ContainsRune(a.val[1:], 'c') && i+1 < len(args) && args[i+1].static {
			return args[i+1].val, true
		}
	}
	return "", false
}

// watchPayload is the command watch runs through sh -c: its operands
// joined by spaces.
func watchPayload(args []blArg) (string, bool) {
	var parts []string
	skip := false
	for _, a := range args {
		switch {
		case skip:
			skip = false
		case len(parts) == 0 && a.static && (a.val == "-n" || a.val == "-d" || a.val == "--interval"):
			skip = a.val != "-d"
		case len(parts) == 0 && a.static && strings.HasPrefix(a.val, "-"):
		case !a.static:
			return "", false
		default:
			parts = append(parts, a.val)
		}
	}
	return strings.Join(parts, " "), len(parts) > 0
}

// forkBomb: a function that calls itself at least twice, at least once in
// a pipeline or in the background (:(){ :|:& };: and renamed variants).
func forkBomb(f *syntax.FuncDecl) *BlacklistEntry {
	if f.Name == nil || f.Body == nil {
		return nil
	}
	name := f.Name.Value
	calls, spawned := 0, false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if callsName(n, name) {
				calls++
			}
		case *syntax.Stmt:
			if n.Background && stmtCalls(n, name) {
				spawned = true
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (stmtCalls(n.X, name) || stmtCalls(n.Y, name)) {
				spawned = true
			}
		}
		return true
	})
	if calls >= 2 && spawned {
		return blEntry("fork-bomb")
	}
	return nil
}

func callsName(c *syntax.CallExpr, name string) bool {
	if len(c.Args) == 0 {
		return false
	}
	v, ok := staticWord(c.Args[0])
	return ok && v == name
}

func stmtCalls(s *syntax.Stmt, name string) (found bool) {
	syntax.Walk(s, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && callsName(c, name) {
			found = true
		}
		return !found
	})
	return found
}

// launcherSpec says how to find the command a launcherSpec runs: options that take
// a value, whether VAR=value words may precede the command, and how many
// operands precede it (timeout's duration, chroot's root).
type launcherSpec struct {
	valued   string // space-separated options that consume the next word
	assigns  bool
	operands int
}

var launcherTable = map[string]launcherSpec{
	"sudo":       {valued: "-u -g -C -D -h -p -r -t -U -T --user --group --chdir --host --prompt --role --type --other-user --close-from", assigns: true},
	"doas":       {valued: "-u -C"},
	"env":        {valued: "-u -C -P --unset --chdir", assigns: true},
	"nice":       {valued: "-n --adjustment"},
	"ionice":     {valued: "-c -n -p -P -u --class --classdata"},
	"timeout":    {valued: "-s -k --signal --kill-after", operands: 1},
	"xargs":      {valued: "-I -L -l -n -P -s -d -E -e -a --blArg-file --delimiter --max-args --max-procs --max-chars --max-lines --eof --replace"},
	"command":    {},
	"builtin":    {},
	"exec":       {valued: "-a"},
	"nohup":      {},
	"setsid":     {},
	"time":       {valued: "-f -o --format --output"},
	"stdbuf":     {valued: "-i -o -e --input --output --error"},
	"chroot":     {valued: "--userspec --groups", operands: 1},
	"flock":      {valued: "-w -E --timeout --conflict-exit-code", operands: 1},
	"unbuffer":   {},
	"busybox":    {},
	"runuser":    {valued: "-u -g -G --user --group --supp-group"},
	"caffeinate": {valued: "-t -w"},
	"taskset":    {operands: 1},
	"chrt":       {operands: 1},
	"strace":     {valued: "-o -e -p -s -u -E"},
	"ltrace":     {valued: "-o -e -p -s -u"},
	"watch":      {valued: "-n -d --interval"},
	"pkexec":     {valued: "--user"},
	"run0":       {valued: "-u --user -g --group -D --chdir"},
	// Launchers that run their operand in namespaces, under a debugger
	// or tracer, with other credentials, limits or I/O.
	"unshare":          {valued: "-S -G -R -w --setuid --setgid --root --wd --map-user --map-group --map-users --map-groups --propagation --kill-child"},
	"nsenter":          {valued: "-t -S -G --target --setuid --setgid"},
	"setpriv":          {valued: "--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile"},
	"prlimit":          {valued: "-p --pid"},
	"valgrind":         {},
	"fakeroot":         {valued: "-l -f -s -i -b --lib --faked"},
	"eatmydata":        {},
	"nocache":          {},
	"tini":             {valued: "-p -e"},
	"dumb-init":        {valued: "-r --rewrite"},
	"catchsegv":        {},
	"numactl":          {valued: "-C -N -m -p -i --physcpubind --cpunodebind --membind --preferred --interleave"},
	"faketime":         {valued: "-m -f -p", operands: 1},
	"torsocks":         {valued: "-u -p -a -P"},
	"proxychains":      {valued: "-f"},
	"proxychains4":     {valued: "-f"},
	"xvfb-run":         {valued: "-n -s -f -e -p --server-num --server-args --auth-file --error-file"},
	"systemd-run":      {valued: "-u -p -E -M -H -d --unit --property --setenv --machine --host --description --slice --uid --gid --nice --working-directory"},
	"dbus-run-session": {valued: "--config-file --dbus-daemon"},
	"trickle":          {valued: "-u -d -w -t -l -n"},
	"cpulimit":         {valued: "-l -p -e --limit --pid --exe"},
	"firejail":         {},
	"chpst":            {valued: "-u -U -b -e -/ -n -l -L -m -d -o -p -f -c -r -t"},
	"setuidgid":        {operands: 1},
	"s6-setuidgid":     {operands: 1},
	"sg":               {operands: 1},
	"parallel":         {valued: "-j -P -S --jobs --sshlogin --joblog --results --delay --timeout"},
	"gdb":              {},
	"lldb":             {},
}

// unwrap returns the command a launcherSpec runs, or false when argv[0] is not
// a launcherSpec or runs nothing. env -S "…" is split into words.
func unwrapLauncher(argv []blArg) ([]blArg, bool) {
	name := blName(argv[0])
	l, ok := launcherTable[name]
	if !ok {
		return nil, false
	}
	valued := strings.Fields(l.valued)
	rest := argv[1:]
	switch name {
	case "gdb", "lldb":
		// What follows --args (gdb) or -- (lldb) is the program.
		for i, a := range rest {
			if a.static && (a.val == "--args" || a.val == "--") {
				return rest[i+1:], len(rest) > i+1
			}
		}
		return nil, false
	case "parallel":
		rest = trimArgLists(rest)
	}
	for len(rest) > 0 {
		a := rest[0]
		switch {
		case !a.static:
			rest = rest[1:] // an unknown option value: try what follows
			continue
		case a.val == "--":
			rest = rest[1:]
		case name == "env" && (a.val == "-S" || a.val == "--split-string") && len(rest) > 1:
			return append(splitEnvS(rest[1]), rest[2:]...), true
		case name == "env" && strings.HasPrefix(a.val, "-S") && len(a.val) > 2:
			return append(splitEnvS(blArg{val: a.val[2:], static: true}), rest[1:]...), true
		case strings.HasPrefix(a.val, "-") && len(a.val) > 1:
			rest = rest[1:]
			if inList(valued, a.val) && len(rest) > 0 {
				rest = rest[1:]
			}
			continue
		case l.assigns && isAssignWord(a.val):
			rest = rest[1:]
			continue
		}
		break
	}
	for i := 0; i < l.operands && len(rest) > 0; i++ {
		rest = rest[1:]
	}
	return rest, len(rest) > 0
}

// trimArgLists reads GNU parallel's command line as the command it runs:
// the words before the first :::, ::::, :::+ or ::::+ marker, followed by
// the arguments of the lists, which parallel appends to it.
func trimArgLists(args []blArg) []blArg {
	for i, a := range args {
		if a.static && strings.HasPrefix(a.val, ":::") {
			out := append([]blArg(nil), args[:i]...)
			for _, b := range args[i+1:] {
				if !(b.static && strings.HasPrefix(b.val, ":::")) {
					out = append(out, b)
				}
			}
			return out
		}
	}
	return args
}

func inList(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func splitEnvS(a blArg) []blArg {
	var out []blArg
	for _, f := range strings.Fields(a.val) {
		out = append(out, blArg{val: f, static: a.static, raw: f})
	}
	return out
}

// parseBash parses text as bash within the pre-scan's bounds (size,
// nesting depth, operator count); ok is false for text that is too big or
// too deep, that does not parse, or that makes the parser panic.
func parseBounded(text string) (f *syntax.File, ok bool) {
	if len(text) > defaultMaxBytes {
		return nil, false
	}
	lim := prescanLimits(0, 0)
	if r := prescan(text, lim); r.depth > lim.depth || r.openers > lim.openers || r.operators > lim.operators {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			f, ok = nil, false
		}
	}()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	return f, err == nil
}

// Windows entries. cmd and PowerShell text is not bash, so besides the
// bash-AST pass (which still catches names shared with Unix, such as
// shutdown) their segments are read as blank-separated words, case
// folded, quotes dropped, a leading & or . call operator skipped.

var winRootForms = map[string]bool{
	"": true, "%systemdrive%": true, "$env:systemdrive": true,
	`c:\windows`: true, `c:\windows\system32`: true, `c:\users`: true, `c:\programdata`: true,
	"%systemroot%": true, "%windir%": true, "%userprofile%": true, "%homedrive%%homepath%": true,
	"$env:systemroot": true, "$env:windir": true, "$env:userprofile": true, "$home": true, "~": true,
}

var driveRoot = lazyre.New(`^[a-z]:$`)

// winCatastrophic reports a drive root, a system directory or the profile.
func winCatastrophic(t string) bool {
	t = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(t, `*`), `\*`), `\/`)
	return driveRoot.MatchString(t) || winRootForms[t]
}

func winWords(seg string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(shellcfg.Normalize(seg))) {
		f = strings.NewReplacer(`"`, "", `'`, "", "`", "").Replace(f)
		if f != "" && (len(out) > 0 || (f != "&" && f != ".")) {
			out = append(out, f)
		}
	}
	if len(out) > 0 {
		out[0] = strings.TrimSuffix(out[0][strings.LastIndexAny(out[0], `\/`)+1:], ".exe")
	}
	return out
}

var winRemovers = map[string]bool{"rd": true, "rmdir": true, "del": true, "erase": true, "remove-item": true, "rm": true, "ri": true, "rmdir.exe": true}

// winSegment checks one cmd or PowerShell segment.
func winSegment(seg string) *BlacklistEntry {
	w := winWords(seg)
	if len(w) == 0 {
		return nil
	}
	name, args := w[0], w[1:]
	switch {
	case name == "stop-computer" || name == "restart-computer" || name == "shutdown":
		return blEntry("power-off")
	case name == "format-volume" || name == "clear-disk" || name == "initialize-disk" ||
		(name == "format" && len(args) > 0 && driveRoot.MatchString(strings.TrimRight(args[0], `\/`))):
		return blEntry("make-filesystem")
	case name == "diskpart":
		return blEntry("partition-device")
	case winRemovers[name]:
		return winRemove(args)
	}
	return nil
}

// winRemove: a recursive removal (/s, -recurse, -r) of a catastrophic
// target.
func winRemove(args []string) *BlacklistEntry {
	recursive := false
	var targets []string
	for _, a := range args {
		switch {
		case a == "/s" || strings.HasPrefix(a, "-r"):
			recursive = true
		case strings.HasPrefix(a, "/") && len(a) == 2, strings.HasPrefix(a, "-"):
		default:
			targets = append(targets, strings.TrimPrefix(a, "-path:"))
		}
	}
	for _, t := range targets {
		if recursive && winCatastrophic(t) {
			return blEntry("recursive-delete-root")
		}
	}
	return nil
}

var (
	psAssign   = lazyre.New(`^\$[\w:]+\s*[-+*/]?=[^=]`)
	psInvoke   = lazyre.New(`(^|[^a-z-])(iex|invoke-expression)([^a-z-]|$)`)
	psDownload = lazyre.New(`downloadstring|downloadfile|net\.webclient|invoke-webrequest|invoke-restmethod|(^|[^a-z-])(iwr|irm|curl|wget|start-bitstransfer)([^a-z-]|$)`)
)

// checkWindows runs the Windows entries over cmd or PowerShell text.
func checkWindows(text string, segs []string) *BlacklistEntry {
	for _, s := range segs {
		if e := winSegment(s); e != nil {
			return e
		}
	}
	low := strings.ToLower(shellcfg.Normalize(text))
	if psInvoke.MatchString(low) && psDownload.MatchString(low) {
		return blEntry("download-to-shell")
	}
	return nil
}

// foreignDynamic reports a cmd or PowerShell segment whose command is
// only known at run time: a variable or expansion in command position, or
// PowerShell's Invoke-Expression.
func foreignDynamic(segs []string) string {
	for _, s := range segs {
		t := strings.TrimLeft(strings.TrimSpace(s), "&. ")
		low := strings.ToLower(t)
		if psAssign.MatchString(t) {
			// $x = value assigns; only a call operator or
			// Invoke-Expression on the right runs something dynamic.
			rhs := strings.TrimSpace(t[strings.IndexByte(t, '=')+1:])
			if strings.HasPrefix(rhs, "&") || psInvoke.MatchString(strings.ToLower(rhs)) {
				return s
			}
			continue
		}
		if strings.HasPrefix(t, "$") || strings.HasPrefix(t, "%") || strings.HasPrefix(t, "!") ||
			strings.HasPrefix(t, "(") || psInvoke.MatchString(low) ||
			strings.HasPrefix(low, "call %") || strings.HasPrefix(low, "call !") {
			return s
		}
	}
	return ""
}
