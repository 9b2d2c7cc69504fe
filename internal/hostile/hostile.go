// Package hostile builds the long and hostile command texts the speed
// benchmarks of the gate and the audit log measure: deep nesting, long
// lists, long here-documents and payloads, and a long find -exec line, each
// at any size. The benchmarks check that cost stays linear in the size.
package hostile

import (
	"fmt"
	"strings"
)

// Sizes are the input sizes the shapes are measured at: from a typical
// long command to sixteen times the gate's parse cap (64 KiB; the largest
// size within it is just under).
var Sizes = []int{1 << 10, 16 << 10, 64<<10 - 64, 256 << 10, 1 << 20}

// Shape is one kind of input; Build makes one of about n bytes.
type Shape struct {
	Name  string
	Build func(n int) string
	// Realistic marks the shapes agents send in practice (the rest are
	// attacks on the parser's and the splitter's bounds).
	Realistic bool
}

// fill repeats unit until the text is about n bytes long, between prefix
// and suffix.
func fill(prefix, unit, suffix string, n int) string {
	k := max(1, (n-len(prefix)-len(suffix))/len(unit))
	return prefix + strings.Repeat(unit, k) + suffix
}

// nest nests open…close around core as deep as fits in n bytes.
func nest(open, core, close string, n int) string {
	k := max(1, (n-len(core))/(len(open)+len(close)))
	return strings.Repeat(open, k) + core + strings.Repeat(close, k)
}

// pastCap is one statement nested one level past the gate's default depth
// cap (256).
func pastCap(open, core, close string) string {
	const depth = 257
	return strings.Repeat(open, depth) + core + strings.Repeat(close, depth)
}

// Shapes returns every shape.
func Shapes() []Shape {
	return []Shape{
		// Statements each nested just past the depth cap, as many as fit.
		{Name: "subst-past-cap", Build: func(n int) string { return fill("", "echo "+pastCap("$(", "x", ")")+"\n", "", n) }},
		{Name: "parens-past-cap", Build: func(n int) string { return fill("", pastCap("(", "true", ")")+"\n", "", n) }},
		{Name: "backquote-chain", Build: func(n int) string { return fill("echo ", "`a`", "", n) }},
		// One nest as deep as the size allows.
		{Name: "subst-deep", Build: func(n int) string { return "echo " + nest("$(", "x", ")", n) }},
		{Name: "subst-unclosed", Build: func(n int) string { return fill("echo ", "$(", "", n) }},
		{Name: "parens-deep", Build: func(n int) string { return nest("(", "true", ")", n) }},
		{Name: "param-deep", Build: func(n int) string { return "echo " + nest("${a:-", "x", "}", n) }},
		// Long lists.
		{Name: "and-chain", Realistic: true, Build: func(n int) string { return fill("", "git status && ", "true", n) }},
		{Name: "pipeline", Realistic: true, Build: func(n int) string { return fill("cat f", " | grep -v x", "", n) }},
		{Name: "statements", Build: func(n int) string { return fill("", "ls -la src; ", "", n) }},
		{Name: "args", Build: func(n int) string { return fill("echo", " word", "", n) }},
		// What agents send.
		{Name: "heredoc-write", Realistic: true, Build: func(n int) string {
			return fill("cat > src/gen.go <<'EOF'\n", "func f() { fmt.Println(\"$(x)\") } // `y`\n", "EOF\n", n)
		}},
		{Name: "heredoc-expanding", Realistic: true, Build: func(n int) string {
			return fill("cat <<EOF\n", "line $HOME ${x:-y} $(date)\n", "EOF\n", n)
		}},
		{Name: "python-c", Realistic: true, Build: func(n int) string {
			return fill("python3 -c '\nimport os, sys\n", "for p in sys.argv: print(os.path.basename(p))\n", "'", n)
		}},
		{Name: "find-exec", Realistic: true, Build: func(n int) string {
			var b strings.Builder
			b.WriteString("find . \\( -name a0")
			for i := 1; b.Len() < n-40; i++ {
				fmt.Fprintf(&b, " -o -name 'file%d.txt'", i)
			}
			b.WriteString(" \\) -exec grep -l TODO {} +")
			return b.String()
		}},
	}
}
