package gate

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/internal/lazyre"
	"github.com/agentexec/agentexec/shellcfg"
)

// Windows entries. cmd and PowerShell text is not bash, so besides the
// bash-AST pass (which still catches names shared with Unix, such as
// shutdown) their segments are read as blank-separated words, case
// folded, quotes dropped, a leading & or . call operator skipped.

var winRootForms = lazy.NewSet(
	"", "%systemdrive%", "$env:systemdrive",
	`c:\windows`, `c:\windows\system32`, `c:\users`, `c:\programdata`,
	"%systemroot%", "%windir%", "%userprofile%", "%homedrive%%homepath%",
	"$env:systemroot", "$env:windir", "$env:userprofile", "$home", "~",
)

var driveRoot = lazyre.New(`^[a-z]:$`)

// winCatastrophic reports a drive root, a system directory or the profile.
func winCatastrophic(t string) bool {
	t = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(t, `*`), `\*`), `\/`)
	return driveRoot.MatchString(t) || winRootForms.Has(t)
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

var winRemovers = lazy.NewSet("rd", "rmdir", "del", "erase", "remove-item", "rm", "ri", "rmdir.exe")

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
	case winRemovers.Has(name):
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
