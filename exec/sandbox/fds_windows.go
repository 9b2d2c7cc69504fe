package sandbox

// CloseInherited does nothing on Windows: a child gets only the handles
// named for it (os/exec passes an explicit handle list).
func CloseInherited() error { return nil }
