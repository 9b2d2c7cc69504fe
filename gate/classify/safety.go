package classify

// Safety is the classifier's three-state fact about a command.
type Safety string

// The three safety classes. Their order of precedence when results combine
// is Write > Unknown > ReadOnly.
const (
	ReadOnly Safety = "read-only"
	Write    Safety = "write"
	Unknown  Safety = "unknown"
)

// rank orders the classes for Merge: a higher rank wins.
func (s Safety) rank() int {
	switch s {
	case ReadOnly:
		return 0
	case Write:
		return 2
	}
	return 1 // Unknown, and any unexpected value, fail closed.
}

// Merge combines two results: write > unknown > read-only. Any value that is
// not one of the three classes counts as Unknown.
func Merge(a, b Safety) Safety {
	if a.rank() >= b.rank() {
		return a.norm()
	}
	return b.norm()
}

func (s Safety) norm() Safety {
	switch s {
	case ReadOnly, Write:
		return s
	}
	return Unknown
}
