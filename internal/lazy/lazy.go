// Package lazy holds tables that are built the first time they are read
// instead of when the program starts.
//
// Go initializes every package linked into a binary before main runs, and a
// package-level map literal is built there, by code. agentexec links the
// gate, the audit log, the hooks and both servers into one binary, so
// `agentexec version`, and every `agentexec hook` process (one per tool call
// an agent makes), would build tables that only another subcommand reads.
//
// A Set declared as `var s = lazy.NewSet("a", "b")`, and a Value declared as
// a composite literal, `&lazy.Value[T]{Build: func() T { ... }}` with a
// function literal that captures nothing, are laid out by the compiler as
// static data: no code runs for them at start-up, and the table is built on
// first use. Both are safe for concurrent use.
package lazy

import (
	"strings"
	"sync"
)

// Set is a set of strings whose lookup map is built on first use.
type Set struct {
	words  []string
	fields string
	once   sync.Once
	m      map[string]struct{}
}

// NewSet returns the set of words. Called in a package-level declaration it
// compiles to static data.
func NewSet(words ...string) *Set { return &Set{words: words} }

// FieldSet returns the set of the blank-separated words of text, for a long
// list of names kept as a block of text. It compiles to static data too.
func FieldSet(text string) *Set { return &Set{fields: text} }

// Has reports whether w is in the set.
func (s *Set) Has(w string) bool {
	s.once.Do(s.build)
	_, ok := s.m[w]
	return ok
}

// Words returns the set's members in the order they were declared. The
// caller must not modify the slice.
func (s *Set) Words() []string {
	s.once.Do(s.build)
	return s.words
}

func (s *Set) build() {
	if s.fields != "" {
		s.words = strings.Fields(s.fields)
	}
	m := make(map[string]struct{}, len(s.words))
	for _, w := range s.words {
		m[w] = struct{}{}
	}
	s.m = m
}

// Value is a value built by Build the first time Get is called. Declare it
// as a composite literal so that it is static data until then.
type Value[T any] struct {
	// Build makes the value; it is called once.
	Build func() T

	once     sync.Once
	v        T
	panicked any
}

// Get returns the value, building it on the first call. A Build that
// panicked panics again on every later call, as sync.OnceValue does,
// rather than handing out a zero value.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	if l.panicked != nil {
		panic(l.panicked)
	}
	return l.v
}

func (l *Value[T]) build() {
	defer func() {
		if p := recover(); p != nil {
			l.panicked = p
		}
	}()
	l.v = l.Build()
}
