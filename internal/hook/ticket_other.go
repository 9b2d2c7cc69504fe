//go:build !unix

package hook

import "io/fs"

// oNoFollow is 0 where open has no such flag; the ticket directory's
// access control is then the operating system's default for the user's
// profile directory.
const oNoFollow = 0

// fileOwner reports no owner where file modes carry none.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
