package gate

// classifyAwk classifies an awk invocation from its static, quote-removed
// arguments (the words after "awk"). The reason names the deciding rule.
func classifyAwk(args []string) (Safety, string) {
	return Unknown, "awk scanner not implemented yet"
}
