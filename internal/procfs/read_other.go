//go:build !unix

package procfs

import "os"

// ReadFile is os.ReadFile where there is no /proc.
func ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }
