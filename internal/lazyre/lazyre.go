// Package lazyre holds regular expressions that are compiled the first
// time they are used instead of when the program starts.
//
// Every agentexec process pays for its package-level regular expressions
// before main runs, and `agentexec hook` is a new process for every tool
// call an agent makes: most of those expressions (sed and awk scanners,
// PowerShell checks, secret redaction) are never needed for a typical
// command. A *Regexp is safe for concurrent use, like *regexp.Regexp.
//
// Sharp edge: a bad pattern panics at its first use, not at start-up.
// Each package that declares them checks them all in a test with Check.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// New returns the expression for pattern, not compiled yet. It builds no
// closure, so that `var x = lazyre.New(...)` compiles to static data and
// costs nothing at start-up.
func New(pattern string) *Regexp { return &Regexp{pattern: pattern} }

// compiled compiles the expression once. A bad pattern panics at every use:
// MustCompile runs again rather than a nil expression being used.
func (r *Regexp) compiled() *regexp.Regexp {
	r.once.Do(r.compile)
	if r.re == nil {
		return regexp.MustCompile(r.pattern)
	}
	return r.re
}

func (r *Regexp) compile() { r.re = regexp.MustCompile(r.pattern) }

// Check compiles each expression, returning the first error: tests call it
// so that a bad pattern fails the build's tests, not a user's command.
func Check(rs ...*Regexp) error {
	for _, r := range rs {
		if _, err := regexp.Compile(r.pattern); err != nil {
			return err
		}
	}
	return nil
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.compiled() }

// String returns the pattern.
func (r *Regexp) String() string { return r.pattern }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.compiled().MatchString(s) }

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.compiled().FindString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.compiled().FindStringSubmatch(s) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.compiled().ReplaceAllString(src, repl)
}
