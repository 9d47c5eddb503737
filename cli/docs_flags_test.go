package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// docFlagUse is one place a document gives a command a flag.
type docFlagUse struct {
	doc, command, flag, text string
}

// TestDocsNameOnlyRealFlags: every flag the documentation gives a command
// is a flag of that command. It reads three forms: a command line
// (`mcpscope check --strict`, or a line of a code block, a `\` joining the
// next), a code span that starts with a command's name (`check --record`),
// and a flag followed by the commands it is said to work with
// ("`--record FILE` writes one (the TUI, `call`, `check`)"). What follows a
// lone `--` is the server's command line, not mcpscope's.
func TestDocsNameOnlyRealFlags(t *testing.T) {
	const top = ".."
	docs, err := filepath.Glob(filepath.Join(top, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(top, "README.md"))
	root := newRootCommand()
	uses := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(top, doc)
		for _, u := range docFlagUses(root, name, string(text)) {
			uses++
			cmd, _, err := root.Find(strings.Fields(u.command))
			if err != nil {
				t.Errorf("%s: %q names the command %q, which does not exist", u.doc, u.text, u.command)
				continue
			}
			if !hasFlag(cmd, u.flag) {
				t.Errorf("%s: %q gives %s the flag %s, which it does not have", u.doc, u.text, strings.TrimSpace("mcpscope "+u.command), u.flag)
			}
		}
	}
	if uses < 50 {
		t.Errorf("only %d uses of a flag found in the documentation: the reader misses them", uses)
	}
}

// The reader finds each form, and what it finds is judged: a flag the
// command lacks fails.
func TestDocFlagReaderFindsEachForm(t *testing.T) {
	root := newRootCommand()
	text := "Run `mcpscope call --method ping -- node s.js --port 1`, or `check --strict`.\n" +
		"`--record FILE` writes one (the TUI, `call`, `replay`).\n" +
		"```sh\nmcpscope tap install --config x.json \\\n  --server y --dry-run | tee out\n```\n"
	var got []string
	for _, u := range docFlagUses(root, "t.md", text) {
		got = append(got, strings.TrimSpace(u.command+" "+u.flag))
	}
	want := "tap install --config,tap install --server,tap install --dry-run,call --method,check --strict,call --record,replay --record,--record"
	if strings.Join(got, ",") != want {
		t.Errorf("found %s\nwant  %s", strings.Join(got, ","), want)
	}
	check, _, _ := root.Find([]string{"check"})
	if !hasFlag(check, "--strict") || hasFlag(check, "--no-such-flag") || !hasFlag(check, "-e") || !hasFlag(check, "--help") {
		t.Error("hasFlag judges wrongly")
	}
}

var (
	fencedBlock = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	codeSpan    = regexp.MustCompile("`([^`\n]+)`")
	// flagThenCommands is "`--flag ...` ... (the TUI, `call`, `check`)"
	// within one sentence.
	flagThenCommands = regexp.MustCompile("`(--[a-z][a-z0-9-]*)[^`]*`[^.`(]*\\(([^)]*)\\)")
)

// docFlagUses lists the flags a document gives commands, in the forms
// TestDocsNameOnlyRealFlags reads.
func docFlagUses(root *cobra.Command, doc, text string) []docFlagUse {
	var out []docFlagUse
	var lines []string
	for _, m := range fencedBlock.FindAllStringSubmatch(text, -1) {
		lines = append(lines, strings.Split(strings.ReplaceAll(m[1], "\\\n", " "), "\n")...)
	}
	prose := fencedBlock.ReplaceAllString(text, "")
	for _, m := range codeSpan.FindAllStringSubmatch(prose, -1) {
		span := m[1]
		if first, _, _ := strings.Cut(span, " "); isSubcommand(root, first) && strings.Contains(span, " -") {
			span = "mcpscope " + span
		}
		lines = append(lines, span)
	}
	for _, line := range lines {
		for _, cl := range strings.Split(line, "mcpscope ")[1:] {
			out = append(out, commandLineFlags(root, doc, cl)...)
		}
	}
	for _, m := range flagThenCommands.FindAllStringSubmatch(prose, -1) {
		for _, c := range codeSpan.FindAllStringSubmatch(m[2], -1) {
			if isSubcommand(root, c[1]) {
				out = append(out, docFlagUse{doc: doc, command: c[1], flag: m[1], text: m[0]})
			}
		}
		if strings.Contains(m[2], "the TUI") {
			out = append(out, docFlagUse{doc: doc, command: "", flag: m[1], text: m[0]})
		}
	}
	return out
}

// commandLineFlags reads what follows "mcpscope ": the command's words,
// then its flags, up to the end of mcpscope's part of the line.
func commandLineFlags(root *cobra.Command, doc, line string) []docFlagUse {
	words := strings.Fields(line)
	cmd, path := root, []string{}
	i := 0
	for ; i < len(words); i++ {
		sub := subcommand(cmd, words[i])
		if sub == nil {
			break
		}
		cmd, path = sub, append(path, words[i])
	}
	var out []docFlagUse
	for _, w := range words[i:] {
		if w == "--" || w == "|" || w == "&&" || w == ";" || w == "#" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") || strings.HasPrefix(w, "<") {
			break
		}
		w = strings.TrimRight(w, ",.;:)`'\"")
		name, _, _ := strings.Cut(w, "=")
		if !strings.HasPrefix(name, "-") || len(name) < 2 || strings.ContainsAny(name, "<>[]{}/…") || name == "--" {
			continue
		}
		if name[1] != '-' && len(name) != 2 {
			continue // not a flag: a negative number, a dash range
		}
		out = append(out, docFlagUse{doc: doc, command: strings.Join(path, " "), flag: name, text: "mcpscope " + strings.TrimSpace(line)})
	}
	return out
}

func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

func isSubcommand(root *cobra.Command, name string) bool { return subcommand(root, name) != nil }

// hasFlag reports whether cmd takes the flag (--name or -x), its parents'
// persistent flags and cobra's own (--help, --version) included.
func hasFlag(cmd *cobra.Command, flag string) bool {
	switch flag {
	case "--help", "-h":
		return true
	case "--version", "-v":
		return cmd.Parent() == nil
	}
	if name, ok := strings.CutPrefix(flag, "--"); ok {
		return cmd.Flag(name) != nil
	}
	short := strings.TrimPrefix(flag, "-")
	return cmd.Flags().ShorthandLookup(short) != nil || cmd.InheritedFlags().ShorthandLookup(short) != nil
}
