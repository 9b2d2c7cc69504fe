package gate

import (
	"github.com/agentexec/agentexec/gate/classify"
	"github.com/agentexec/agentexec/gate/programs"
)

// The classifier lives in gate/classify; these names keep gate's API.

// Safety is the three-state class of a command (see classify.Safety).
type Safety = classify.Safety

// The classes, write > unknown > read-only.
const (
	ReadOnly = classify.ReadOnly
	Write    = classify.Write
	Unknown  = classify.Unknown
)

// Result is a classification with its evidence.
type Result = classify.Result

// Evidence is one piece of a classification.
type Evidence = classify.Evidence

// ClassifyOptions are the inputs of a classification besides the text.
type ClassifyOptions = classify.Options

// Classify returns the three-state safety class of a command text (see
// classify.Classify).
func Classify(text string, opt ClassifyOptions) Result { return classify.Classify(text, opt) }

// ClassifyInDir classifies bash text as it would run in cwd.
func ClassifyInDir(text, cwd string) Result { return classify.ClassifyInDir(text, cwd) }

// Merge combines two classes: write > unknown > read-only.
func Merge(a, b Safety) Safety { return classify.Merge(a, b) }

// VouchRefused says why name can never be vouched read-only, or "" when
// it can (see classify.VouchRefused).
func VouchRefused(name string) string { return classify.VouchRefused(name) }

func refusalFloor(name string) bool { return classify.RefusalFloor(name) }

// subCommands is the facts tree's reader of sub-languages.
func subCommands(scanner programs.Scanner, args []string) ([]string, string) {
	return classify.SubCommands(scanner, args)
}
