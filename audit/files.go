package audit

import (
	"os"
	"path/filepath"
)

// Files lists the files of the log that exist now, absolute: the current
// file, its rotated files, anchors and torn lines (Files.Records) and its
// lock file (Files.Lock), with the key file named in Options.KeyFile. A
// sandbox keeps them out of a command's reach: the records read-only, the
// lock and key hidden (a command holding the lock would stall every
// writer; the key forges records).
func (l *Log) Files() Files {
	var fs Files
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	exists := func(p string) bool {
		_, err := os.Lstat(p)
		return err == nil
	}
	rotated, _ := rotatedFiles(l.opt.Path)
	for _, p := range append(rotated, l.opt.Path, l.opt.Path+".anchors", l.opt.Path+".torn") {
		if exists(p) {
			fs.Records = append(fs.Records, abs(p))
		}
	}
	if p := l.opt.Path + ".lock"; exists(p) {
		fs.Lock = abs(p)
	}
	if l.opt.KeyFile != "" && exists(l.opt.KeyFile) {
		fs.Key = abs(l.opt.KeyFile)
	}
	return fs
}

// Files are the files of an open Log; see [Log.Files].
type Files struct {
	Records []string // the log, rotated files, anchors, torn lines
	Lock    string
	Key     string // the key file, when Options.KeyFile names it
}
