package gate

// classifySed classifies a sed invocation from its static, quote-removed
// arguments (the words after "sed"). The reason names the deciding rule.
func classifySed(args []string) (Safety, string) {
	return Unknown, "sed scanner not implemented yet"
}
