package classify

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// gitOptKind says what git does with a long option its subcommand's
// parse-options table does not hold.
type gitOptKind uint8

const (
	// gitOptsOnly: git refuses it ("unknown option"), so the rules refuse
	// it too: an option the table does not know is unknown.
	gitOptsOnly gitOptKind = iota
	// gitOptsMore: it goes on to the revision parser, which matches
	// exactly (blame, shortlog); the helper checks then see it as given.
	gitOptsMore
	// gitOptsStop: options end at the first word that is not one (git
	// remote ACTION …): the action's own options follow, matched exactly.
	gitOptsStop
)

// gitOptTable is one subcommand's long options, negations included,
// each mapped to whether it takes a value that may be the next word.
type gitOptTable struct {
	kind  gitOptKind
	names map[string]bool
}

// gitOptSet reads git's completion list: "name=" takes a required value
// (the next word when not given as --name=value); an optional value is
// only ever given with "=".
func gitOptSet(names string) map[string]bool {
	fields := strings.Fields(names)
	m := make(map[string]bool, len(fields))
	for _, n := range fields {
		name, value := strings.CutSuffix(n, "=")
		m[name] = value
	}
	return m
}

// gitLongOpts are the long options of the subcommands git parses with
// parse-options, which takes any unique prefix of a long option or of its
// negation (`git branch --mov a b` moves a branch, `git config --unset-a`
// is --unset-all, `git apply --check --ap` applies): each word is read as
// the option git reads. The names are git 2.39.5's own lists (`git SUB
// --git-completion-helper-all`, hidden options and negations included);
// TestGitLongOptsMatchGit compares them with the installed git.
// Subcommands missing here (log, show, diff, rev-list, diff-tree,
// format-patch, stash show/list, reflog) parse their options exactly:
// `git log --show-sig` is an error there, not --show-signature.
//
// Built on first use: the lists are a few thousand names, which every
// process would otherwise hash at start-up.
var gitLongOpts = sync.OnceValue(func() map[string]gitOptTable {
	return map[string]gitOptTable{
		"branch": {gitOptsOnly, gitOptSet(`
		abbrev all color column contains copy create-reflog delete edit-description force
		format= ignore-case list merged move no-abbrev no-all no-color no-column no-contains
		no-copy no-create-reflog no-delete no-edit-description no-force no-format no-ignore-case
		no-list no-merged no-move no-points-at no-quiet no-recurse-submodules no-remotes
		no-set-upstream no-set-upstream-to no-show-current no-sort no-track no-unset-upstream
		no-verbose points-at= quiet recurse-submodules remotes set-upstream set-upstream-to=
		show-current sort= track unset-upstream verbose with without`)},
		"tag": {gitOptsOnly, gitOptSet(`
		annotate cleanup= color column contains create-reflog delete edit file= force format=
		ignore-case list local-user= merged message= no-annotate no-cleanup no-color no-column
		no-contains no-create-reflog no-edit no-file no-force no-format no-ignore-case
		no-local-user no-merged no-points-at no-sign no-sort points-at sign sort= verify with
		without`)},
		"config": {gitOptsOnly, gitOptSet(`
		add blob= bool bool-or-int bool-or-str default= edit expiry-date file= fixed-value get
		get-all get-color get-colorbool get-regexp get-urlmatch global includes int list local
		name-only no-add no-blob no-default no-edit no-file no-fixed-value no-get no-get-all
		no-get-color no-get-colorbool no-get-regexp no-get-urlmatch no-global no-includes
		no-list no-local no-name-only no-null no-remove-section no-rename-section no-replace-all
		no-show-origin no-show-scope no-system no-type no-unset no-unset-all no-worktree null
		path remove-section rename-section replace-all show-origin show-scope system type= unset
		unset-all worktree`)},
		"apply": {gitOptsOnly, gitOptSet(`
		3way add allow-binary-replacement allow-empty allow-overlap apply binary
		build-fake-ancestor= cached check directory= exclude= ignore-space-change
		ignore-whitespace inaccurate-eof include= index intent-to-add no-3way no-add
		no-allow-binary-replacement no-allow-empty no-allow-overlap no-apply no-binary
		no-build-fake-ancestor no-cached no-check no-directory no-ignore-space-change
		no-ignore-whitespace no-inaccurate-eof no-index no-intent-to-add no-numstat no-quiet
		no-recount no-reject no-reverse no-stat no-summary no-unidiff-zero no-unsafe-paths
		no-verbose no-whitespace numstat quiet recount reject reverse stat summary unidiff-zero
		unsafe-paths verbose whitespace=`)},
		"remote": {gitOptsStop, gitOptSet(`
		no-verbose verbose`)},
		"status": {gitOptsOnly, gitOptSet(`
		ahead-behind branch column find-renames ignore-submodules ignored long no-ahead-behind
		no-branch no-column no-ignore-submodules no-ignored no-long no-null no-porcelain
		no-renames no-short no-show-stash no-untracked-files no-verbose null porcelain renames
		short show-stash untracked-files verbose`)},
		"grep": {gitOptsOnly, gitOptSet(`
		after-context= all-match and basic-regexp before-context= break cached color column
		context= count exclude-standard ext-grep extended-regexp files-with-matches
		files-without-match fixed-strings full-name function-context heading ignore-case index
		invert-match line-number max-count= max-depth= name-only no-after-context no-all-match
		no-basic-regexp no-before-context no-break no-cached no-color no-column no-context
		no-count no-exclude-standard no-ext-grep no-extended-regexp no-files-with-matches
		no-files-without-match no-fixed-strings no-full-name no-function-context no-heading
		no-ignore-case no-index no-invert-match no-line-number no-max-count no-name-only no-null
		no-only-matching no-open-files-in-pager no-or no-perl-regexp no-quiet
		no-recurse-submodules no-recursive no-show-function no-text no-textconv no-threads
		no-untracked no-word-regexp not null only-matching open-files-in-pager or perl-regexp
		quiet recurse-submodules recursive show-function text textconv threads= untracked
		word-regexp`)},
		"ls-files": {gitOptsOnly, gitOptSet(`
		abbrev cached debug deduplicate deleted directory empty-directory eol error-unmatch
		exclude= exclude-from= exclude-per-directory= exclude-standard format= full-name ignored
		killed modified no-abbrev no-cached no-debug no-deduplicate no-deleted no-directory
		no-empty-directory no-eol no-error-unmatch no-exclude-per-directory no-ignored no-killed
		no-modified no-others no-recurse-submodules no-resolve-undo no-sparse no-stage
		no-unmerged no-with-tree others recurse-submodules resolve-undo sparse stage unmerged
		with-tree=`)},
		"describe": {gitOptsOnly, gitOptSet(`
		abbrev all always broken candidates= contains debug dirty exact-match exclude=
		first-parent long match= no-abbrev no-all no-always no-broken no-candidates no-contains
		no-debug no-dirty no-exact-match no-exclude no-first-parent no-long no-match no-tags
		tags`)},
		"for-each-ref": {gitOptsOnly, gitOptSet(`
		color contains count= format= ignore-case merged no-color no-contains no-count no-format
		no-ignore-case no-merged no-perl no-points-at no-python no-shell no-sort no-tcl perl
		points-at= python shell sort= tcl`)},
		"show-ref": {gitOptsOnly, gitOptSet(`
		abbrev dereference exclude-existing hash head heads no-abbrev no-dereference no-hash
		no-head no-heads no-quiet no-tags no-verify quiet tags verify`)},
		"cat-file": {gitOptsOnly, gitOptSet(`
		allow-unknown-type batch batch-all-objects batch-check batch-command buffer filters
		follow-symlinks mailmap no-allow-unknown-type no-buffer no-follow-symlinks no-mailmap
		no-path no-unordered no-use-mailmap path= textconv unordered use-mailmap`)},
		"ls-tree": {gitOptsOnly, gitOptSet(`
		abbrev format= full-name full-tree long name-only name-status no-abbrev no-full-name
		no-full-tree object-only`)},
		"check-ignore": {gitOptsOnly, gitOptSet(`
		index no-index no-non-matching no-quiet no-stdin no-verbose non-matching quiet stdin
		verbose`)},
		"check-attr": {gitOptsOnly, gitOptSet(`
		all cached no-all no-cached no-stdin stdin`)},
		"count-objects": {gitOptsOnly, gitOptSet(`
		human-readable no-human-readable no-verbose verbose`)},
		"name-rev": {gitOptsOnly, gitOptSet(`
		all always annotate-stdin exclude= name-only no-all no-always no-annotate-stdin
		no-exclude no-name-only no-peel-tag no-refs no-stdin no-tags no-undefined peel-tag refs=
		stdin tags undefined`)},
		"merge-base": {gitOptsOnly, gitOptSet(`
		all fork-point independent is-ancestor no-all octopus`)},
		"show-branch": {gitOptsOnly, gitOptSet(`
		all color current date-order independent list merge-base more name no-all no-color
		no-current no-date-order no-independent no-list no-merge-base no-more no-name no-remotes
		no-sha1-name no-sparse no-topics no-topo-order reflog remotes sha1-name sparse topics
		topo-order`)},
		"cherry": {gitOptsOnly, gitOptSet(`
		abbrev no-abbrev no-verbose verbose`)},
		"version": {gitOptsOnly, gitOptSet(`
		build-options no-build-options`)},
		"range-diff": {gitOptsOnly, gitOptSet(`
		abbrev anchored= binary break-rewrites check color color-moved color-moved-ws=
		color-words compact-summary creation-factor= cumulative diff-algorithm= diff-filter=
		dirstat dirstat-by-file dst-prefix= dual-color exit-code ext-diff find-copies
		find-copies-harder find-object= find-renames follow full-index function-context
		histogram ignore-all-space ignore-blank-lines ignore-cr-at-eol ignore-matching-lines=
		ignore-space-at-eol ignore-space-change ignore-submodules indent-heuristic
		inter-hunk-context= irreversible-delete ita-invisible-in-index ita-visible-in-index
		left-only line-prefix= minimal name-only name-status no-abbrev no-color no-color-moved
		no-color-moved-ws no-compact-summary no-creation-factor no-dual-color no-exit-code
		no-ext-diff no-find-copies-harder no-follow no-full-index no-function-context
		no-ignore-matching-lines no-indent-heuristic no-left-only no-minimal no-notes no-patch
		no-prefix no-quiet no-relative no-rename-empty no-renames no-right-only no-text
		no-textconv notes numstat output= output-indicator-context= output-indicator-new=
		output-indicator-old= patch patch-with-raw patch-with-stat patience pickaxe-all
		pickaxe-regex quiet raw relative rename-empty right-only rotate-to= shortstat skip-to=
		src-prefix= stat stat-count= stat-graph-width= stat-name-width= stat-width= submodule
		summary text textconv unified word-diff word-diff-regex= ws-error-highlight=`)},
		"blame": {gitOptsMore, gitOptSet(`
		abbrev color-by-age color-lines contents= ignore-rev= ignore-revs-file= incremental
		line-porcelain minimal no-abbrev no-color-by-age no-color-lines no-contents
		no-ignore-rev no-ignore-revs-file no-incremental no-line-porcelain no-minimal
		no-porcelain no-progress no-root no-score-debug no-show-email no-show-name
		no-show-number no-show-stats porcelain progress root score-debug show-email show-name
		show-number show-stats`)},
		"shortlog": {gitOptsMore, gitOptSet(`
		committer email group= no-committer no-email no-group no-numbered no-summary numbered
		summary`)},
	}
})

// gitCanonLong rewrites each long option of args to the full name git
// reads for it, keeping any "=value". ok is false, with the finding, for a
// word that abbreviates several options (git refuses it; the rules do not
// guess which) or that the table does not hold where git would refuse it.
// Words after "--", and short options, are kept as given.
func gitCanonLong(sub string, args []string) (out []string, f finding, ok bool) {
	t, has := gitLongOpts()[sub]
	if !has {
		return args, finding{}, true
	}
	out = make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(args); i++ {
		v := args[i]
		if v == "--" || (t.kind == gitOptsStop && !strings.HasPrefix(v, "-")) {
			break
		}
		if !strings.HasPrefix(v, "--") {
			continue
		}
		name, val, hasVal := strings.Cut(v[2:], "=")
		full, cands := gitResolveLong(t.names, name)
		switch {
		case full != "":
			out[i] = "--" + full
			if hasVal {
				out[i] += "=" + val
			} else if t.names[full] {
				i++ // the value, even one that looks like an option (--format --help)
			}
		case len(cands) > 1:
			return nil, finding{Unknown, "git-option-ambiguous", fmt.Sprintf("`git %s %s` abbreviates several options (--%s); git refuses it and the rules do not guess", sub, v, strings.Join(cands, ", --"))}, false
		case t.kind != gitOptsMore:
			return nil, finding{Unknown, "git-option-unknown", fmt.Sprintf("`git %s %s` is not an option the rules know", sub, v)}, false
		}
	}
	return out, finding{}, true
}

// gitResolveLong is parse-options' long-option match: the exact name, else
// the one name name is a prefix of. With no exact match and several
// prefixes it returns them all (sorted) and no name. git treats the two
// spellings of an alias (--with/--contains) as one option; here they count
// as two, which only refuses more.
func gitResolveLong(names map[string]bool, name string) (string, []string) {
	if name == "" {
		return "", nil
	}
	if _, ok := names[name]; ok {
		return name, nil
	}
	var cands []string
	for n := range names {
		if strings.HasPrefix(n, name) {
			cands = append(cands, n)
		}
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	sort.Strings(cands)
	return "", cands
}
