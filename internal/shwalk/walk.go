// Package shwalk walks an mvdan.cc/sh syntax tree as syntax.Walk does —
// the same nodes in the same order, f(nil) after a node's children — at
// a fraction of its cost. syntax.Walk holds a defer inside a loop (for
// comments placed after a statement), which makes every call to it, one
// per node, pay the runtime's slow defer path on return; on long words
// (hundreds of substitutions) that was a third of the walking time. The
// gate parses without comments, so the one case that needs the defer is
// handed to syntax.Walk itself.
package shwalk

import "mvdan.cc/sh/v3/syntax"

// Walk traverses node depth-first as syntax.Walk does: f(node), then,
// when f returns true, each non-nil child and f(nil). node must not be
// nil.
func Walk(node syntax.Node, f func(syntax.Node) bool) {
	if commented(node) {
		syntax.Walk(node, f)
		return
	}
	if !f(node) {
		return
	}
	switch n := node.(type) {
	case *syntax.Word:
		parts(n.Parts, f)
	case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
	case *syntax.DblQuoted:
		parts(n.Parts, f)
	case *syntax.CmdSubst:
		stmts(n.Stmts, f)
		comments(n.Last, f)
	case *syntax.ParamExp:
		paramExp(n, f)
	case *syntax.Stmt:
		if n.Cmd != nil {
			Walk(n.Cmd, f)
		}
		for _, r := range n.Redirs {
			Walk(r, f)
		}
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			Walk(a, f)
		}
		words(n.Args, f)
	case *syntax.Assign:
		assign(n, f)
	case *syntax.Redirect:
		if n.N != nil {
			Walk(n.N, f)
		}
		Walk(n.Word, f)
		if n.Hdoc != nil {
			Walk(n.Hdoc, f)
		}
	default:
		compound(node, f)
	}
	f(nil)
}

// commented reports a node whose comments syntax.Walk places after its
// children (the case that needs its defer).
func commented(node syntax.Node) bool {
	switch n := node.(type) {
	case *syntax.Stmt:
		return len(n.Comments) > 0
	case *syntax.CaseItem:
		return len(n.Comments) > 0
	case *syntax.ArrayElem:
		return len(n.Comments) > 0
	}
	return false
}

func parts(ps []syntax.WordPart, f func(syntax.Node) bool) {
	for _, p := range ps {
		Walk(p, f)
	}
}

func words(ws []*syntax.Word, f func(syntax.Node) bool) {
	for _, w := range ws {
		Walk(w, f)
	}
}

func stmts(ss []*syntax.Stmt, f func(syntax.Node) bool) {
	for _, s := range ss {
		Walk(s, f)
	}
}

func comments(cs []syntax.Comment, f func(syntax.Node) bool) {
	for i := range cs {
		Walk(&cs[i], f)
	}
}

func paramExp(n *syntax.ParamExp, f func(syntax.Node) bool) {
	if n.Flags != nil {
		Walk(n.Flags, f)
	}
	if n.Param != nil {
		Walk(n.Param, f)
	}
	if n.NestedParam != nil {
		Walk(n.NestedParam, f)
	}
	if n.Index != nil {
		Walk(n.Index, f)
	}
	if n.Slice != nil {
		if n.Slice.Offset != nil {
			Walk(n.Slice.Offset, f)
		}
		if n.Slice.Length != nil {
			Walk(n.Slice.Length, f)
		}
	}
	if n.Repl != nil {
		if n.Repl.Orig != nil {
			Walk(n.Repl.Orig, f)
		}
		if n.Repl.With != nil {
			Walk(n.Repl.With, f)
		}
	}
	if n.Exp != nil && n.Exp.Word != nil {
		Walk(n.Exp.Word, f)
	}
}

func assign(n *syntax.Assign, f func(syntax.Node) bool) {
	if n.Name != nil {
		Walk(n.Name, f)
	}
	if n.Value != nil {
		Walk(n.Value, f)
	}
	if n.Index != nil {
		Walk(n.Index, f)
	}
	if n.Array != nil {
		Walk(n.Array, f)
	}
}

// compound walks the children of the less common nodes, in syntax.Walk's
// order.
func compound(node syntax.Node, f func(syntax.Node) bool) {
	switch n := node.(type) {
	case *syntax.File:
		stmts(n.Stmts, f)
		comments(n.Last, f)
	case *syntax.Subshell:
		stmts(n.Stmts, f)
		comments(n.Last, f)
	case *syntax.Block:
		stmts(n.Stmts, f)
		comments(n.Last, f)
	case *syntax.ProcSubst:
		stmts(n.Stmts, f)
		comments(n.Last, f)
	case *syntax.BinaryCmd:
		Walk(n.X, f)
		Walk(n.Y, f)
	case *syntax.IfClause:
		stmts(n.Cond, f)
		comments(n.CondLast, f)
		stmts(n.Then, f)
		comments(n.ThenLast, f)
		comments(n.Last, f)
		if n.Else != nil {
			Walk(n.Else, f)
		}
	case *syntax.WhileClause:
		stmts(n.Cond, f)
		comments(n.CondLast, f)
		stmts(n.Do, f)
		comments(n.DoLast, f)
	case *syntax.ForClause:
		Walk(n.Loop, f)
		stmts(n.Do, f)
		comments(n.DoLast, f)
	case *syntax.WordIter:
		Walk(n.Name, f)
		words(n.Items, f)
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil {
				Walk(x, f)
			}
		}
	case *syntax.FuncDecl:
		if n.Name != nil {
			Walk(n.Name, f)
		}
		for _, l := range n.Names {
			Walk(l, f)
		}
		Walk(n.Body, f)
	case *syntax.CaseClause:
		Walk(n.Word, f)
		for _, it := range n.Items {
			Walk(it, f)
		}
		comments(n.Last, f)
	case *syntax.CaseItem:
		words(n.Patterns, f)
		stmts(n.Stmts, f)
		comments(n.Last, f)
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			Walk(e, f)
		}
		comments(n.Last, f)
	case *syntax.ArrayElem:
		if n.Index != nil {
			Walk(n.Index, f)
		}
		if n.Value != nil {
			Walk(n.Value, f)
		}
	default:
		expr(node, f)
	}
}

// expr walks the children of arithmetic and test expressions and the
// remaining commands.
func expr(node syntax.Node, f func(syntax.Node) bool) {
	switch n := node.(type) {
	case *syntax.ArithmExp:
		Walk(n.X, f)
	case *syntax.ArithmCmd:
		Walk(n.X, f)
	case *syntax.BinaryArithm:
		Walk(n.X, f)
		Walk(n.Y, f)
	case *syntax.UnaryArithm:
		Walk(n.X, f)
	case *syntax.ParenArithm:
		Walk(n.X, f)
	case *syntax.FlagsArithm:
		Walk(n.Flags, f)
		if n.X != nil {
			Walk(n.X, f)
		}
	case *syntax.BinaryTest:
		Walk(n.X, f)
		Walk(n.Y, f)
	case *syntax.UnaryTest:
		Walk(n.X, f)
	case *syntax.ParenTest:
		Walk(n.X, f)
	case *syntax.TestClause:
		Walk(n.X, f)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			Walk(a, f)
		}
	case *syntax.ExtGlob:
		Walk(n.Pattern, f)
	case *syntax.TimeClause:
		if n.Stmt != nil {
			Walk(n.Stmt, f)
		}
	case *syntax.CoprocClause:
		if n.Name != nil {
			Walk(n.Name, f)
		}
		Walk(n.Stmt, f)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			Walk(x, f)
		}
	case *syntax.TestDecl:
		Walk(n.Description, f)
		Walk(n.Body, f)
	default:
		panic("shwalk: a syntax node this walker does not know; mirror syntax.Walk for it")
	}
}
