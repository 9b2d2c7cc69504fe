package gate

import (
	"fmt"
	"strings"
	"testing"
)

// hostileSizes are the input sizes the hostile shapes are measured at:
// from a typical long command to sixteen times the parse cap. Inputs past
// facts.MaxBytes are refused unparsed by the classifier, but the decision
// still splits, pre-scans and checks them, so their cost must stay linear.
var hostileSizes = []int{1 << 10, 16 << 10, 64<<10 - 64, 256 << 10, 1 << 20}

// hostileShape builds one kind of hostile or merely long input of about n
// bytes.
type hostileShape struct {
	name  string
	build func(n int) string
}

// fillTo repeats unit until the text is about n bytes long, between
// prefix and suffix.
func fillTo(prefix, unit, suffix string, n int) string {
	k := max(1, (n-len(prefix)-len(suffix))/len(unit))
	return prefix + strings.Repeat(unit, k) + suffix
}

// nestTo nests open…close around core as deep as fits in n bytes.
func nestTo(open, core, close string, n int) string {
	k := max(1, (n-len(core))/(len(open)+len(close)))
	return strings.Repeat(open, k) + core + strings.Repeat(close, k)
}

// pastCap is one statement nested one level past the default depth cap.
func pastCap(open, core, close string) string {
	const depth = 257 // defaultMaxDepth + 1
	return strings.Repeat(open, depth) + core + strings.Repeat(close, depth)
}

func hostileShapes() []hostileShape {
	return []hostileShape{
		// Statements each nested just past the depth cap, as many as fit.
		{"subst-past-cap", func(n int) string { return fillTo("", "echo "+pastCap("$(", "x", ")")+"\n", "", n) }},
		{"parens-past-cap", func(n int) string { return fillTo("", pastCap("(", "true", ")")+"\n", "", n) }},
		{"backquote-chain", func(n int) string { return fillTo("echo ", "`a`", "", n) }},
		// One nest as deep as the size allows.
		{"subst-deep", func(n int) string { return "echo " + nestTo("$(", "x", ")", n) }},
		{"subst-unclosed", func(n int) string { return fillTo("echo ", "$(", "", n) }},
		{"parens-deep", func(n int) string { return nestTo("(", "true", ")", n) }},
		{"param-deep", func(n int) string { return "echo " + nestTo("${a:-", "x", "}", n) }},
		// Long lists.
		{"and-chain", func(n int) string { return fillTo("", "git status && ", "true", n) }},
		{"pipeline", func(n int) string { return fillTo("cat f", " | grep -v x", "", n) }},
		{"statements", func(n int) string { return fillTo("", "ls -la src; ", "", n) }},
		{"args", func(n int) string { return fillTo("echo", " word", "", n) }},
		// Realistic long commands.
		{"heredoc-write", func(n int) string {
			return fillTo("cat > src/gen.go <<'EOF'\n", "func f() { fmt.Println(\"$(x)\") } // `y`\n", "EOF\n", n)
		}},
		{"heredoc-expanding", func(n int) string {
			return fillTo("cat <<EOF\n", "line $HOME ${x:-y} $(date)\n", "EOF\n", n)
		}},
		{"python-c", func(n int) string {
			return fillTo("python3 -c '\nimport os, sys\n", "for p in sys.argv: print(os.path.basename(p))\n", "'", n)
		}},
		{"find-exec", func(n int) string {
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

// BenchmarkHostile is a full decision (the 20-rule policy of
// BenchmarkDecide, default mode) per op for every hostile shape at every
// size: the cost per input byte must not grow with the size
// (scripts/bench-gate.sh prints it per MiB).
func BenchmarkHostile(b *testing.B) {
	p := benchPolicy(b)
	for _, s := range hostileShapes() {
		for _, n := range hostileSizes {
			text := s.build(n)
			b.Run(fmt.Sprintf("%s/%dKiB", s.name, (n+512)>>10), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					Decide(Input{Text: text, Policy: p})
				}
			})
		}
	}
}
