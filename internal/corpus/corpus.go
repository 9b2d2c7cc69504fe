// Package corpus reads testdata/corpus/agent-commands.txt, the commands AI
// coding agents typically send, for the tests and benchmarks that run the
// gate over them. It is one reader so that every consumer sees the same
// commands: copies of the loop had drifted (one trimmed the lines, one
// turned each \n in a printf format into a newline).
package corpus

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Path is the corpus file's path, found from this source file's place in
// the module (tests run with their package's directory as working
// directory, which differs by package).
func Path() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("testdata", "corpus", "agent-commands.txt")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "corpus", "agent-commands.txt")
}

// AgentCommands returns the corpus's commands in order: every line that is
// neither blank nor a comment (# in its first column), as written.
func AgentCommands() ([]string, error) {
	f, err := os.Open(Path())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cmds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			cmds = append(cmds, l)
		}
	}
	return cmds, sc.Err()
}
