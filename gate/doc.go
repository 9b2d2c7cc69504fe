// Package gate decides whether a command may run: allow, ask or deny, with
// the rule that decided and a reason written for the model.
//
// A decision reads the text once (gate/facts builds the facts tree: every
// program start the text can make, nested ones included, and every hidden
// execution), then applies, in order: the blacklist of catastrophic
// commands (by meaning: targets resolved, every spelling of a program and
// of its operands), the deny and ask rules (against every call in every
// spelling, words known only at run time as holes a `*` may stand for),
// the allow rules (every segment and every call the shell runs must be
// covered; none may cover a hidden execution while a deny or ask rule
// exists), the classifier (gate/classify) and the mode.
//
// Guarantees: the blacklist denies in every mode, yolo included, and asks
// in yolo where it cannot resolve a target or a shell spelling; a deny rule
// is never beaten by an allow rule, a hidden execution or a spelling the
// facts tree reads; anything the gate cannot read (a parse error, input
// past the bounds, a character that hides text) makes the answer stricter.
//
// What it does not promise: a static answer is about the text. What a
// script, a build tool or an interpreter does when it runs is for the
// run-time exec gate (exec/sandbox) and the sandbox to watch; read-only
// does not prove harmless (see gate/classify). Facts about programs come
// from gate/programs, the one table every part reads.
package gate
