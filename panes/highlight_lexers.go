package panes

import (
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/alecthomas/chroma/v2"
)

// mcpscope's own lexers, in place of chroma's registry: that registry
// parses every one of its ~250 lexers at package initialisation, a cost
// paid at every start of every command whether or not anything is ever
// highlighted, and chroma has no lazy one. These cover what an MCP
// server's text plausibly is; each is built at its first use and its rules
// compiled then too (chroma.MustNewLexer defers both). They aim at the
// tokens a reader's eye looks for (keywords, strings, comments, numbers,
// names being defined or called), not at a compiler's precision.

// lang is one language highlight knows: the names a Markdown code fence
// may call it by, the file extensions (lower case, with the dot) and
// file names that say a text is in it, and its MIME types (lower case,
// without parameters).
type lang struct {
	name    string
	aliases []string
	exts    []string
	files   []string
	mimes   []string
	rules   func() chroma.Rules

	once  sync.Once
	lexer chroma.Lexer
}

// Lexer is lang's lexer, built at its first use. Its tokens are as its
// rules cut them: lex joins a run of one type.
func (l *lang) Lexer() chroma.Lexer {
	l.once.Do(func() {
		l.lexer = chroma.MustNewLexer(&chroma.Config{Name: l.name}, l.rules)
	})
	return l.lexer
}

var (
	langJSON = &lang{
		name:    "JSON",
		aliases: []string{"json", "jsonc", "json5", "jsonl", "ndjson", "geojson"},
		exts:    []string{".json", ".jsonc", ".json5", ".jsonl", ".ndjson", ".geojson", ".har", ".ipynb"},
		mimes:   []string{"application/json", "text/json", "application/x-json", "application/jsonl", "application/x-ndjson", "application/x-jsonlines", "application/json-seq"},
		rules:   jsonRules,
	}
	langJavaScript = &lang{
		name:    "JavaScript",
		aliases: []string{"js", "javascript", "jsx", "mjs", "cjs", "node", "ecmascript"},
		exts:    []string{".js", ".mjs", ".cjs", ".jsx"},
		mimes:   []string{"application/javascript", "text/javascript", "application/x-javascript", "application/ecmascript", "text/ecmascript", "text/jsx"},
		rules:   func() chroma.Rules { return scriptRules(false) },
	}
	langTypeScript = &lang{
		name:    "TypeScript",
		aliases: []string{"ts", "typescript", "tsx", "mts", "cts"},
		exts:    []string{".ts", ".mts", ".cts", ".tsx"},
		mimes:   []string{"application/typescript", "text/typescript", "application/x-typescript", "text/x-typescript", "text/tsx"},
		rules:   func() chroma.Rules { return scriptRules(true) },
	}
	langPython = &lang{
		name:    "Python",
		aliases: []string{"py", "python", "python3", "py3", "pyi"},
		exts:    []string{".py", ".pyi", ".pyw"},
		files:   []string{"sconstruct", "sconscript"},
		mimes:   []string{"text/x-python", "application/x-python", "text/x-python3", "application/x-python3", "text/x-script.python"},
		rules:   pythonRules,
	}
	langGo = &lang{
		name:    "Go",
		aliases: []string{"go", "golang"},
		exts:    []string{".go"},
		mimes:   []string{"text/x-go", "text/x-golang", "application/x-go"},
		rules:   goRules,
	}
	langHTML = &lang{
		name:    "HTML",
		aliases: []string{"html", "htm", "xhtml"},
		exts:    []string{".html", ".htm", ".xhtml"},
		mimes:   []string{"text/html", "application/xhtml+xml"},
		rules:   func() chroma.Rules { return markupRules(true) },
	}
	langXML = &lang{
		name:    "XML",
		aliases: []string{"xml", "svg", "rss", "atom", "xsd", "xsl", "xslt", "plist"},
		exts:    []string{".xml", ".svg", ".rss", ".atom", ".xsd", ".xsl", ".xslt", ".wsdl", ".plist", ".csproj"},
		mimes:   []string{"application/xml", "text/xml"},
		rules:   func() chroma.Rules { return markupRules(false) },
	}
	langCSS = &lang{
		name:    "CSS",
		aliases: []string{"css"},
		exts:    []string{".css"},
		mimes:   []string{"text/css"},
		rules:   cssRules,
	}
	langYAML = &lang{
		name:    "YAML",
		aliases: []string{"yaml", "yml"},
		exts:    []string{".yaml", ".yml"},
		mimes:   []string{"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"},
		rules:   yamlRules,
	}
	langTOML = &lang{
		name:    "TOML",
		aliases: []string{"toml"},
		exts:    []string{".toml"},
		mimes:   []string{"application/toml", "application/x-toml", "text/toml", "text/x-toml"},
		rules:   tomlRules,
	}
	langShell = &lang{
		name:    "Shell",
		aliases: []string{"sh", "bash", "shell", "zsh", "ksh", "shellscript"},
		exts:    []string{".sh", ".bash", ".zsh", ".ksh"},
		files:   []string{".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile"},
		mimes:   []string{"application/x-sh", "text/x-sh", "application/x-shellscript", "text/x-shellscript", "application/x-bash", "text/x-script.sh"},
		rules:   shellRules,
	}
	langSQL = &lang{
		name:    "SQL",
		aliases: []string{"sql", "mysql", "postgresql", "postgres", "pgsql", "sqlite", "plsql", "tsql"},
		exts:    []string{".sql"},
		mimes:   []string{"application/sql", "text/x-sql", "application/x-sql", "text/sql"},
		rules:   sqlRules,
	}
	langMarkdown = &lang{
		name:    "Markdown",
		aliases: []string{"md", "markdown", "mkd"},
		exts:    []string{".md", ".markdown", ".mkd", ".mdx"},
		mimes:   []string{"text/markdown", "text/x-markdown"},
		rules:   markdownRules,
	}
	langDiff = &lang{
		name:    "Diff",
		aliases: []string{"diff", "patch", "udiff"},
		exts:    []string{".diff", ".patch"},
		mimes:   []string{"text/x-diff", "text/x-patch", "application/x-patch", "application/x-diff"},
		rules:   diffRules,
	}
	langMakefile = &lang{
		name:    "Makefile",
		aliases: []string{"make", "makefile", "mf"},
		exts:    []string{".mk", ".mak"},
		files:   []string{"makefile", "gnumakefile"},
		mimes:   []string{"text/x-makefile"},
		rules:   makefileRules,
	}
	langDockerfile = &lang{
		name:    "Dockerfile",
		aliases: []string{"docker", "dockerfile", "containerfile"},
		exts:    []string{".dockerfile"},
		files:   []string{"dockerfile", "containerfile"},
		mimes:   []string{"text/x-dockerfile"},
		rules:   dockerfileRules,
	}
	langRust = &lang{
		name:    "Rust",
		aliases: []string{"rust", "rs"},
		exts:    []string{".rs"},
		mimes:   []string{"text/rust", "text/x-rust", "application/x-rust"},
		rules:   rustRules,
	}
	langJava = &lang{
		name:    "Java",
		aliases: []string{"java"},
		exts:    []string{".java"},
		mimes:   []string{"text/x-java", "text/x-java-source", "application/x-java"},
		rules:   javaRules,
	}
	langC = &lang{
		name:    "C",
		aliases: []string{"c", "h"},
		exts:    []string{".c", ".h"},
		mimes:   []string{"text/x-c", "text/x-csrc", "text/x-chdr"},
		rules:   func() chroma.Rules { return cRules(false) },
	}
	langCPP = &lang{
		name:    "C++",
		aliases: []string{"cpp", "c++", "cxx", "cc", "hpp", "h++"},
		exts:    []string{".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ino"},
		mimes:   []string{"text/x-c++", "text/x-c++src", "text/x-c++hdr"},
		rules:   func() chroma.Rules { return cRules(true) },
	}
)

// langs is every language highlight knows. It is set by init, not by its
// declaration, as Markdown's rules look a code block's language up in it.
var langs []*lang

func init() {
	langs = []*lang{
		langJSON, langJavaScript, langTypeScript, langPython, langGo, langHTML, langXML, langCSS,
		langYAML, langTOML, langShell, langSQL, langMarkdown, langDiff, langMakefile, langDockerfile, langRust, langJava, langC, langCPP,
	}
}

// langIndex finds a language by alias, extension, file name and MIME
// type; built at the first look-up, not at every start.
var langIndex = sync.OnceValue(func() (ix struct{ alias, ext, file, mime map[string]*lang }) {
	ix.alias, ix.ext, ix.file, ix.mime = map[string]*lang{}, map[string]*lang{}, map[string]*lang{}, map[string]*lang{}
	for _, l := range langs {
		for _, k := range l.aliases {
			ix.alias[k] = l
		}
		for _, k := range l.exts {
			ix.ext[k] = l
		}
		for _, k := range l.files {
			ix.file[k] = l
		}
		for _, k := range l.mimes {
			ix.mime[k] = l
		}
	}
	return ix
})

// langForMime is the language a MIME type (lower case, no parameters)
// names: its own, else by its structured syntax suffix (+json, +xml,
// +yaml); nil for text/plain and any type that names no language.
func langForMime(mime string) *lang {
	if l := langIndex().mime[mime]; l != nil {
		return l
	}
	switch {
	case strings.HasSuffix(mime, "+json"):
		return langJSON
	case strings.HasSuffix(mime, "+xml"):
		return langXML
	case strings.HasSuffix(mime, "+yaml"):
		return langYAML
	}
	return nil
}

// langForFile is the language a file's base name says: by the whole name
// (.bashrc), else by its extension, either in any case.
func langForFile(base string) *lang {
	base = strings.ToLower(base)
	if l := langIndex().file[base]; l != nil {
		return l
	}
	return langIndex().ext[path.Ext(base)]
}

// langForAlias is the language a Markdown code fence's info string
// names (python, py, sh, ...), in any case.
func langForAlias(alias string) *lang {
	return langIndex().alias[strings.ToLower(alias)]
}

// Patterns several lexers share.
const (
	identPattern = `[\p{L}_][\p{L}\p{N}_]*`
	// numberPattern is a decimal, hexadecimal, octal or binary number with
	// digit separators, an exponent and a type suffix (1_000, 0x1F, 2.5e-3,
	// 10n, 1.0f, 42u64).
	numberPattern = `(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)[a-zA-Z0-9_]*`
)

// words tells a language's words apart: each is the type its list gives
// it, else a function when a "(" follows it (a call or a definition), else
// a plain name.
type words struct {
	types map[string]chroma.TokenType
	calls bool // a word before "(" is a function's name
	fold  bool // the language's words are case-insensitive (SQL)
}

// newWords lists a language's words by type: each string is a list of
// words separated by spaces.
func newWords(calls bool, lists map[chroma.TokenType]string) *words {
	w := &words{types: map[string]chroma.TokenType{}, calls: calls}
	for tt, list := range lists {
		for _, word := range strings.Fields(list) {
			w.types[word] = tt
		}
	}
	return w
}

// Emit gives the word the rule matched its type. Looking a word up in a
// map is much faster than trying an alternation of every keyword as a
// regular expression at every position of the text.
func (w *words) Emit(groups []string, state *chroma.LexerState) chroma.Iterator {
	word := groups[0]
	key := word
	if w.fold {
		key = strings.ToLower(word)
	}
	tt, ok := w.types[key]
	if !ok {
		tt = chroma.Name
		if w.calls && parenFollows(state.Text, state.Pos) {
			tt = chroma.NameFunction
		}
	}
	return chroma.Literator(chroma.Token{Type: tt, Value: word})
}

// parenFollows says whether text at pos, past spaces and tabs, is "(".
func parenFollows(text []rune, pos int) bool {
	for ; pos < len(text); pos++ {
		switch text[pos] {
		case ' ', '\t':
			continue
		case '(':
			return true
		}
		return false
	}
	return false
}

// anyChar is every state's last rule, so that no character is ever an
// error token (which the theme draws in red).
var anyChar = chroma.Rule{Pattern: `[\s\S]`, Type: chroma.Text}

// Rules several lexers share.
var (
	spaces       = chroma.Rule{Pattern: `\s+`, Type: chroma.Text}
	lineComment  = chroma.Rule{Pattern: `//.*`, Type: chroma.CommentSingle}
	blockComment = chroma.Rule{Pattern: `/\*[\s\S]*?(?:\*/|\z)`, Type: chroma.CommentMultiline}
	hashComment  = chroma.Rule{Pattern: `#.*`, Type: chroma.CommentSingle}
	doubleQuoted = chroma.Rule{Pattern: `"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"?`, Type: chroma.LiteralStringDouble}
	singleQuoted = chroma.Rule{Pattern: `'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'?`, Type: chroma.LiteralStringSingle}
	number       = chroma.Rule{Pattern: numberPattern, Type: chroma.LiteralNumber}
	cOperator    = chroma.Rule{Pattern: `[-+*/%=<>!&|^~?:]+`, Type: chroma.Operator}
	cPunctuation = chroma.Rule{Pattern: `[{}()\[\];,.@]`, Type: chroma.Punctuation}
)

// identifierFor is the rule for a language's identifiers and keywords.
func identifierFor(w *words) chroma.Rule { return chroma.Rule{Pattern: identPattern, Type: w} }

// jsonRules lex JSON, JSON lines and JSON with comments: a string before
// a ":" is a key. A value's string is read in a state of its own, a run
// of characters or an escape at a time: one pattern over a long string
// (a base64 blob, JSON escaped in JSON) would overflow the regular
// expression engine's backtracking stack and fail.
func jsonRules() chroma.Rules {
	return chroma.Rules{
		"root": {
			spaces,
			{Pattern: `"[^"\\\n]{0,1024}(?:\\.[^"\\\n]{0,1024}){0,64}"(?=\s*:)`, Type: chroma.NameTag},
			{Pattern: `"`, Type: chroma.LiteralStringDouble, Mutator: chroma.Push("string")},
			{Pattern: `-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`, Type: chroma.LiteralNumber},
			{Pattern: `(?:true|false|null)\b`, Type: chroma.KeywordConstant},
			{Pattern: `[{}\[\],:]`, Type: chroma.Punctuation},
			lineComment, blockComment,
			anyChar,
		},
		"string": {
			{Pattern: `[^"\\\n]+|\\[^\n]`, Type: chroma.LiteralStringDouble},
			{Pattern: `"`, Type: chroma.LiteralStringDouble, Mutator: chroma.Pop(1)},
			{Pattern: `(?=\n)`, Mutator: chroma.Pop(1)}, // unclosed: the line ends it
			anyChar,
		},
	}
}

// scriptRules lex JavaScript, and TypeScript when ts (JSX and TSX
// included: a tag's parts are lexed as names, operators and strings).
func scriptRules(ts bool) chroma.Rules {
	lists := map[chroma.TokenType]string{
		chroma.Keyword: "break case catch class const continue debugger default delete do else export extends " +
			"finally for function if import in instanceof let new of return super switch this throw try typeof var " +
			"void while with yield async await static get set from as",
		chroma.KeywordConstant: "true false null undefined NaN Infinity",
		chroma.NameBuiltin: "console window document globalThis process require module exports Object Array String " +
			"Number Boolean Symbol BigInt Math JSON Date RegExp Promise Map Set WeakMap WeakSet Error TypeError",
	}
	if ts {
		lists[chroma.Keyword] += " interface type enum implements namespace declare readonly private public " +
			"protected abstract keyof infer is satisfies module override accessor"
		lists[chroma.KeywordType] = "string number boolean any unknown never object symbol bigint"
	}
	w := newWords(true, lists)
	return chroma.Rules{
		"root": {
			spaces,
			typeDefinition("class interface enum"),
			{Pattern: `[\p{L}_$][\p{L}\p{N}_$]*`, Type: w},
			doubleQuoted, singleQuoted,
			{Pattern: "`", Type: chroma.LiteralStringBacktick, Mutator: chroma.Push("template")},
			lineComment, blockComment,
			// A "/" where an expression starts begins a regular expression.
			{Pattern: `(?=/)(?<=(?:^|[=(,:\[!&|?{};]|\breturn|\btypeof)\s*)/(?![*/])(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n\[])+/[dgimsuyv]*`, Type: chroma.LiteralStringRegex},
			number,
			{Pattern: `@[\p{L}_$][\p{L}\p{N}_$.]*`, Type: chroma.NameDecorator},
			{Pattern: `=>|[-+*/%=<>!&|^~?:]+`, Type: chroma.Operator},
			cPunctuation,
			anyChar,
		},
		// A template literal, its ${...} lexed as code.
		"template": {
			{Pattern: "`", Type: chroma.LiteralStringBacktick, Mutator: chroma.Pop(1)},
			{Pattern: `\$\{`, Type: chroma.LiteralStringInterpol, Mutator: chroma.Push("interpolation")},
			{Pattern: "[^`\\\\$]+|\\\\[\\s\\S]|\\$", Type: chroma.LiteralStringBacktick},
			anyChar,
		},
		"interpolation": {
			{Pattern: `\}`, Type: chroma.LiteralStringInterpol, Mutator: chroma.Pop(1)},
			{Pattern: `\{`, Type: chroma.Punctuation, Mutator: chroma.Push("braces")},
			chroma.Include("root"),
		},
		"braces": {
			{Pattern: `\}`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
			{Pattern: `\{`, Type: chroma.Punctuation, Mutator: chroma.Push("braces")},
			chroma.Include("root"),
		},
	}
}

// pythonRules lex Python 3.
func pythonRules() chroma.Rules {
	w := newWords(true, map[chroma.TokenType]string{
		chroma.Keyword: "and as assert async await break class continue def del elif else except finally for " +
			"from global if import in is lambda nonlocal not or pass raise return try while with yield match case",
		chroma.KeywordConstant: "True False None",
		chroma.NameBuiltin: "self cls print len range str int float bool dict list set tuple frozenset bytes " +
			"object type isinstance issubclass open super enumerate zip map filter sorted reversed sum min max " +
			"abs any all repr hash id iter next getattr setattr hasattr callable Exception ValueError TypeError " +
			"KeyError IndexError RuntimeError NotImplementedError",
	})
	return chroma.Rules{"root": {
		spaces,
		{Pattern: `(def|class)(\s+)(` + identPattern + `)`, Type: pyDefinition},
		// A string's prefix (r, b, f, u and their pairs) is part of it.
		{Pattern: `(?i:[rbuf]|rb|br|fr|rf)?(?:"""[\s\S]*?(?:"""|\z)|'''[\s\S]*?(?:'''|\z))`, Type: chroma.LiteralStringDoc},
		{Pattern: `(?i:[rbuf]|rb|br|fr|rf)?(?:"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"?|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'?)`, Type: chroma.LiteralString},
		identifierFor(w),
		hashComment,
		number,
		{Pattern: `@` + identPattern + `(?:\.` + identPattern + `)*`, Type: chroma.NameDecorator},
		{Pattern: `->|[-+*/%=<>!&|^~:]+`, Type: chroma.Operator},
		cPunctuation,
		anyChar,
	}}
}

// pyDefinition colours "def f" and "class C": the keyword, then the name
// it defines.
var pyDefinition = chroma.EmitterFunc(func(groups []string, _ *chroma.LexerState) chroma.Iterator {
	name := chroma.NameFunction
	if groups[1] == "class" {
		name = chroma.NameClass
	}
	return chroma.Literator(chroma.Token{Type: chroma.Keyword, Value: groups[1]},
		chroma.Token{Type: chroma.Text, Value: groups[2]}, chroma.Token{Type: name, Value: groups[3]})
})

// typeDefinition is a rule for a keyword that defines a type (class,
// struct, ...) and the type's name after it.
func typeDefinition(keywords string) chroma.Rule {
	return chroma.Rule{Pattern: `\b(` + strings.ReplaceAll(keywords, " ", "|") + `)(\s+)(` + identPattern + `)`,
		Type: chroma.ByGroups(chroma.Keyword, chroma.Text, chroma.NameClass)}
}

// goRules lex Go.
func goRules() chroma.Rules {
	w := newWords(true, map[chroma.TokenType]string{
		chroma.Keyword: "break case chan const continue default defer else fallthrough for func go goto if " +
			"import interface map package range return select struct switch type var",
		chroma.KeywordType: "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 " +
			"rune string uint uint8 uint16 uint32 uint64 uintptr any comparable",
		chroma.KeywordConstant: "true false nil iota",
		chroma.NameBuiltin: "append cap clear close complex copy delete imag len make max min new panic print " +
			"println real recover",
	})
	return chroma.Rules{"root": {
		spaces,
		identifierFor(w),
		lineComment, blockComment,
		doubleQuoted,
		{Pattern: "`[^`]*`?", Type: chroma.LiteralStringBacktick},
		{Pattern: `'(?:\\[^'\n]+|[^'\\\n])'`, Type: chroma.LiteralStringChar},
		number,
		cOperator, cPunctuation,
		anyChar,
	}}
}

// markupRules lex XML, and HTML when html (its script and style elements'
// content as JavaScript and CSS).
func markupRules(html bool) chroma.Rules {
	root := []chroma.Rule{
		{Pattern: `[^<&]+`, Type: chroma.Text},
		{Pattern: `<!--[\s\S]*?(?:-->|\z)`, Type: chroma.CommentMultiline},
		{Pattern: `<\?[\s\S]*?(?:\?>|\z)`, Type: chroma.CommentPreproc},
		{Pattern: `<!\[CDATA\[[\s\S]*?(?:\]\]>|\z)`, Type: chroma.CommentPreproc},
		{Pattern: `<![^>]*>?`, Type: chroma.CommentPreproc},
		{Pattern: `&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[\p{L}\p{N}]+);`, Type: chroma.NameEntity},
	}
	if html {
		root = append(root,
			chroma.Rule{Pattern: `(?i)(<)(script)(\b[^>]*)(>)([\s\S]*?)(</)(script)(\s*>)`, Type: chroma.ByGroups(chroma.Punctuation, chroma.NameTag,
				chroma.UsingSelf("attributes"), chroma.Punctuation, chroma.UsingLexer(langJavaScript.Lexer()), chroma.Punctuation, chroma.NameTag, chroma.Punctuation)},
			chroma.Rule{Pattern: `(?i)(<)(style)(\b[^>]*)(>)([\s\S]*?)(</)(style)(\s*>)`, Type: chroma.ByGroups(chroma.Punctuation, chroma.NameTag,
				chroma.UsingSelf("attributes"), chroma.Punctuation, chroma.UsingLexer(langCSS.Lexer()), chroma.Punctuation, chroma.NameTag, chroma.Punctuation)},
		)
	}
	root = append(root,
		chroma.Rule{Pattern: `(</?)([\p{L}_:][\p{L}\p{N}_:.\-]*)`, Type: chroma.ByGroups(chroma.Punctuation, chroma.NameTag), Mutator: chroma.Push("tag")},
		anyChar,
	)
	attributes := []chroma.Rule{
		spaces,
		{Pattern: `(=)(\s*)("[^"]*"?|'[^']*'?|[^\s>"'=]+)`, Type: chroma.ByGroups(chroma.Operator, chroma.Text, chroma.LiteralString)},
		{Pattern: `[^\s=>/"']+`, Type: chroma.NameAttribute},
	}
	return chroma.Rules{
		"root":       root,
		"tag":        append([]chroma.Rule{{Pattern: `/?>`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)}}, append(attributes, anyChar)...),
		"attributes": append(attributes, anyChar),
	}
}

// cssRules lex CSS: selectors, then in a block properties and their
// values.
func cssRules() chroma.Rules {
	comment := chroma.Rule{Pattern: `/\*[\s\S]*?(?:\*/|\z)`, Type: chroma.CommentMultiline}
	str := chroma.Rule{Pattern: `"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"?|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'?`, Type: chroma.LiteralString}
	selectors := []chroma.Rule{
		{Pattern: `@[\w-]+`, Type: chroma.Keyword},
		{Pattern: `[#.][\w-]+`, Type: chroma.NameClass},
		{Pattern: `::?[\w-]+`, Type: chroma.NameDecorator},
		{Pattern: `[\w-]+|\*`, Type: chroma.NameTag},
		{Pattern: `[\[\]()>,+~=|^$]`, Type: chroma.Punctuation},
	}
	return chroma.Rules{
		"root": append([]chroma.Rule{spaces, comment, str,
			{Pattern: `\{`, Type: chroma.Punctuation, Mutator: chroma.Push("block")}},
			append(selectors, anyChar)...),
		"block": append([]chroma.Rule{spaces, comment,
			{Pattern: `\}`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
			{Pattern: `\{`, Type: chroma.Punctuation, Mutator: chroma.Push("block")},
			{Pattern: `(-?-?[\w-]+)(\s*)(:)(?!:?[\w-]+\s*[{,])`, Type: chroma.ByGroups(chroma.NameAttribute, chroma.Text, chroma.Punctuation), Mutator: chroma.Push("value")},
			{Pattern: `;`, Type: chroma.Punctuation}, str},
			append(selectors, anyChar)...),
		"value": {
			spaces, comment, str,
			{Pattern: `;`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
			{Pattern: `(?=[{}])`, Mutator: chroma.Pop(1)},
			{Pattern: `!\s*important\b`, Type: chroma.Keyword},
			{Pattern: `#[0-9a-fA-F]{3,8}\b`, Type: chroma.LiteralNumberHex},
			{Pattern: `[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:%|[a-zA-Z]+)?`, Type: chroma.LiteralNumber},
			{Pattern: `-?[\w-]+(?=\()`, Type: chroma.NameFunction},
			{Pattern: `-?[\w-]+`, Type: chroma.Name},
			{Pattern: `[(),/]`, Type: chroma.Punctuation},
			anyChar,
		},
	}
}

// yamlRules lex YAML line by line: keys, the values' strings, numbers
// and constants, comments, anchors, tags and block scalars.
func yamlRules() chroma.Rules {
	// A plain scalar's word: a "#" in it follows no space, a ":" in it is
	// followed by no space. Written without an alternation repeated a
	// character at a time: chroma's engine keeps a backtracking step for
	// each, and a long word would overflow its stack.
	word := `[^\s#:,\[\]{}][^\s:,\[\]{}]*(?::+[^\s:,\[\]{}]+){0,64}`
	return chroma.Rules{"root": {
		spaces,
		{Pattern: `(?<=^|\s)#.*`, Type: chroma.CommentSingle},
		{Pattern: `^(?:---|\.\.\.)(?=\s|$)`, Type: chroma.CommentPreproc},
		{Pattern: `^%.*`, Type: chroma.CommentPreproc},
		// A block scalar (| or >) runs over the lines indented deeper than
		// the line it starts on; how far back that line starts is bounded,
		// so that a long line of them is not read back at each.
		{Pattern: `(?=[|>])(?<=^|[ \t])(?<=^([ ]*)[^\n]{0,256}?)([|>][-+0-9]*)([ \t]*(?:#.*)?\n)((?:[ \t]*\n|\1[ ]+[^\n]*\n)*)`,
			Type: yamlBlockScalar},
		{Pattern: `(?:"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\n]*(?:''[^'\n]*)*')(?=[ \t]*:(?:\s|$))`, Type: chroma.NameTag},
		{Pattern: `"[^"\\]*(?:\\[\s\S][^"\\]*)*"?`, Type: chroma.LiteralStringDouble},
		{Pattern: `'[^']*(?:''[^']*)*'?`, Type: chroma.LiteralStringSingle},
		{Pattern: `[&*][^\s,\[\]{}]+`, Type: chroma.NameVariable},
		{Pattern: `![^\s,\[\]{}]*`, Type: chroma.KeywordType},
		{Pattern: `[-?:](?=\s|$)|[\[\]{},]`, Type: chroma.Punctuation},
		// At most so many words at a time: each is a step the engine keeps
		// to backtrack to, and a long line would overflow its stack.
		{Pattern: word + `(?:[ \t]+` + word + `){0,256}`, Type: yamlScalar},
		anyChar,
	}}
}

// yamlBlockScalar colours a block scalar: its indicator, the rest of its
// line and its lines. The rule's first group, the indent of the line it
// starts on, lies before the match and is not emitted.
var yamlBlockScalar = chroma.EmitterFunc(func(groups []string, _ *chroma.LexerState) chroma.Iterator {
	return chroma.Literator(chroma.Token{Type: chroma.Punctuation, Value: groups[2]},
		chroma.Token{Type: chroma.Text, Value: groups[3]}, chroma.Token{Type: chroma.LiteralString, Value: groups[4]})
})

// yamlScalar colours a plain scalar: a key when ": " follows it, else a
// constant, a number or text. Telling them apart here, once the scalar
// is read, keeps a long line from being read again at every word.
var yamlScalar = chroma.EmitterFunc(func(groups []string, state *chroma.LexerState) chroma.Iterator {
	v, tt := groups[0], chroma.Text
	switch {
	case yamlKeyFollows(state.Text, state.Pos):
		tt = chroma.NameTag
	case yamlConstants[v]:
		tt = chroma.KeywordConstant
	case yamlNumber().MatchString(v):
		tt = chroma.LiteralNumber
	}
	return chroma.Literator(chroma.Token{Type: tt, Value: v})
})

// yamlKeyFollows says whether text at pos, past spaces and tabs, is a
// mapping's ":" (one followed by a space, a line's end or the text's).
func yamlKeyFollows(text []rune, pos int) bool {
	for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
		pos++
	}
	return pos < len(text) && text[pos] == ':' && (pos+1 == len(text) || unicode.IsSpace(text[pos+1]))
}

// yamlConstants are the plain scalars YAML (1.1 and 1.2) reads as
// booleans and null.
var yamlConstants = map[string]bool{
	"true": true, "false": true, "True": true, "False": true, "TRUE": true, "FALSE": true,
	"null": true, "Null": true, "NULL": true, "~": true,
	"yes": true, "no": true, "on": true, "off": true, "Yes": true, "No": true, "On": true, "Off": true,
}

// yamlNumber is a plain scalar YAML reads as a number.
var yamlNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?(?:0x[0-9a-fA-F]+|0o[0-7]+|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+|\.(?:inf|Inf|INF|nan|NaN|NAN))$`)
})

// tomlRules lex TOML.
func tomlRules() chroma.Rules {
	return chroma.Rules{
		"root": {
			spaces,
			hashComment,
			{Pattern: `(?=\[)(?<=^[ \t]*)(\[\[?)([^\]\n]*)(\]\]?)`, Type: chroma.ByGroups(chroma.Punctuation, chroma.Keyword, chroma.Punctuation)},
			// A bare key is read once: what is not followed by "=" or "." is
			// text, not tried again from its every character.
			{Pattern: `(?:(?>[\w-]+)|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\n]*')(?=\s*[.=])`, Type: chroma.NameTag},
			{Pattern: `=`, Type: chroma.Operator, Mutator: chroma.Push("value")},
			{Pattern: `\.`, Type: chroma.Punctuation},
			{Pattern: `[\w-]+`, Type: chroma.Text},
			anyChar,
		},
		"value": {
			{Pattern: `[ \t]+`, Type: chroma.Text},
			{Pattern: `\n`, Type: chroma.Text, Mutator: chroma.Pop(1)},
			{Pattern: `"""[\s\S]*?(?:"""|\z)|'''[\s\S]*?(?:'''|\z)`, Type: chroma.LiteralString},
			{Pattern: `"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|'[^'\n]*'?`, Type: chroma.LiteralString},
			{Pattern: `[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?)?|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?`, Type: chroma.LiteralDate},
			{Pattern: `(?:true|false)\b`, Type: chroma.KeywordConstant},
			{Pattern: `[+-]?(?:inf|nan)\b|[+-]?` + numberPattern, Type: chroma.LiteralNumber},
			{Pattern: `#.*`, Type: chroma.CommentSingle},
			{Pattern: `[\[{]`, Type: chroma.Punctuation, Mutator: chroma.Push("inline")},
			{Pattern: `,`, Type: chroma.Punctuation},
			anyChar,
		},
		// An array or inline table, which may run over lines.
		"inline": {
			{Pattern: `\s+`, Type: chroma.Text},
			{Pattern: `[\]}]`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
			{Pattern: `[\w-]+(?=\s*=)`, Type: chroma.NameTag},
			{Pattern: `=`, Type: chroma.Operator},
			chroma.Include("value"),
		},
	}
}

// shellRules lex POSIX shell, bash and zsh.
func shellRules() chroma.Rules {
	w := newWords(false, map[chroma.TokenType]string{
		chroma.Keyword: "if then else elif fi case esac for while until do done in function select time " +
			"return break continue exit export local readonly declare typeset unset shift source alias",
		chroma.NameBuiltin: "echo printf cd pwd read test eval exec set trap wait kill true false exit let " +
			"pushd popd getopts command type ulimit umask",
	})
	variable := chroma.Rule{Pattern: `\$(?:\{[^}\n]*\}?|[\p{L}_][\p{L}\p{N}_]*|[@*#?$!0-9-])`, Type: chroma.NameVariable}
	return chroma.Rules{
		"root": {
			{Pattern: `[ \t]+|\\\n`, Type: chroma.Text},
			{Pattern: `\n`, Type: chroma.Text},
			{Pattern: `\A#!.*`, Type: chroma.CommentHashbang},
			{Pattern: `(?<=^|[\s;|&(])#.*`, Type: chroma.CommentSingle},
			// A word made of letters alone may be a keyword; one with a
			// "-", "/" or "." in it is a command's name or an argument.
			{Pattern: `(?>[\p{L}_][\p{L}\p{N}_]*)(?![\p{L}\p{N}_./-])`, Type: w},
			// A here-document: the line that opens it (the rest of that line
			// left as text: lexing it again would read a line of "<<"s once
			// for each), then its lines up to the delimiter (the text's end
			// when there is none, as in the shell, so that it is read once).
			{Pattern: `(<<-?[ \t]*)(['"]?)([\w-]+)(['"]?)([^\n]*\n)([\s\S]*?^\t*\3$|[\s\S]*)`, Type: chroma.ByGroups(chroma.Operator,
				chroma.LiteralStringHeredoc, chroma.LiteralStringHeredoc, chroma.LiteralStringHeredoc, chroma.Text, chroma.LiteralStringHeredoc)},
			{Pattern: `\$?'[^'\\]*(?:\\.[^'\\]*)*'?`, Type: chroma.LiteralStringSingle},
			{Pattern: `"`, Type: chroma.LiteralStringDouble, Mutator: chroma.Push("double")},
			{Pattern: `\$\(\(|\$\(|\$\[|` + "`", Type: chroma.Punctuation},
			variable,
			{Pattern: `\\.`, Type: chroma.LiteralStringEscape},
			{Pattern: `[0-9]+(?![^\s;|&()<>])`, Type: chroma.LiteralNumber},
			{Pattern: `&&|\|\||;;|[|&;<>]+|=`, Type: chroma.Operator},
			{Pattern: `[()\[\]{}]`, Type: chroma.Punctuation},
			{Pattern: `[^\s;|&()<>'"$\\` + "`" + `=\[\]{}]+`, Type: chroma.Text},
			anyChar,
		},
		"double": {
			{Pattern: `[^"\\$` + "`" + `]+|\\[\s\S]`, Type: chroma.LiteralStringDouble},
			{Pattern: `"`, Type: chroma.LiteralStringDouble, Mutator: chroma.Pop(1)},
			{Pattern: `\$\(`, Type: chroma.LiteralStringInterpol, Mutator: chroma.Push("command")},
			variable,
			anyChar,
		},
		// A command substitution inside a double-quoted string.
		"command": {
			{Pattern: `\)`, Type: chroma.LiteralStringInterpol, Mutator: chroma.Pop(1)},
			chroma.Include("root"),
		},
	}
}

// sqlRules lex SQL, its keywords in any case.
func sqlRules() chroma.Rules {
	w := newWords(true, map[chroma.TokenType]string{
		chroma.Keyword: "select from where and or not in is like ilike between exists insert into values update set " +
			"delete create table view index drop alter add column primary key foreign references unique " +
			"check default constraint join inner left right full outer cross on using group by order having " +
			"limit offset as distinct union all except intersect case when then else end with recursive returning " +
			"begin commit rollback transaction if replace asc desc nulls first last cascade grant revoke " +
			"to database schema trigger function procedure returns language declare execute explain analyze " +
			"over partition window filter conflict do nothing lateral",
		chroma.KeywordType: "int integer smallint bigint serial bigserial decimal numeric real float double precision " +
			"char varchar text boolean bool date time timestamp timestamptz interval uuid json jsonb blob bytea",
		chroma.KeywordConstant: "null true false",
	})
	w.fold = true
	return chroma.Rules{"root": {
		spaces,
		identifierFor(w),
		{Pattern: `--.*`, Type: chroma.CommentSingle},
		{Pattern: `/\*[\s\S]*?(?:\*/|\z)`, Type: chroma.CommentMultiline},
		{Pattern: `[eE]?'[^'\\]*(?:(?:''|\\.)[^'\\]*)*'?`, Type: chroma.LiteralStringSingle},
		{Pattern: `"[^"]*(?:""[^"]*)*"?|` + "`[^`]*`?", Type: chroma.Name},
		{Pattern: `\$[0-9]+|[:@][\p{L}_][\p{L}\p{N}_]*|\?`, Type: chroma.NameVariable},
		number,
		{Pattern: `::|[-+*/%=<>!|&^~]+`, Type: chroma.Operator},
		{Pattern: `[(),;.]`, Type: chroma.Punctuation},
		anyChar,
	}}
}

// markdownRules lex Markdown: headings, list markers, quotes, fenced code
// (coloured as its language when highlight knows it), and inline
// emphasis, code and links.
func markdownRules() chroma.Rules {
	return chroma.Rules{
		"root": {
			{Pattern: `\A(---\n)([\s\S]*?\n)(---)$`, Type: chroma.ByGroups(chroma.CommentPreproc, chroma.UsingLexer(langYAML.Lexer()), chroma.CommentPreproc)},
			{Pattern: `^(?: {0,3})(` + "```+|~~~+" + `)([^\n]*\n)([\s\S]*?)(^ {0,3}\1[ \t]*$)`, Type: fencedCode},
			{Pattern: `^#[^#\n].*`, Type: chroma.GenericHeading},
			{Pattern: `^#{2,6}(?:[ \t].*)?$`, Type: chroma.GenericSubheading},
			{Pattern: `^.+\n(?:=+|-+)[ \t]*$`, Type: chroma.GenericHeading},
			{Pattern: `^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$`, Type: chroma.Punctuation},
			{Pattern: `^([ \t]*)([*+-]|[0-9]+[.)])([ \t]+)(\[[ xX]\])?`, Type: chroma.ByGroups(chroma.Text, chroma.Keyword, chroma.Text, chroma.Keyword)},
			{Pattern: `^([ \t]*>[ \t]?)(.*)`, Type: chroma.ByGroups(chroma.Keyword, chroma.GenericEmph)},
			chroma.Include("inline"),
		},
		"inline": {
			{Pattern: `[^\\<*_~` + "`" + `\[!\n]+`, Type: chroma.Text},
			{Pattern: `\\.`, Type: chroma.Text},
			{Pattern: `<!--[\s\S]*?(?:-->|\z)`, Type: chroma.CommentMultiline},
			// A code span's fence is bounded: the engine could not backtrack
			// through a long run of backticks, which the second pattern takes.
			{Pattern: "(`{1,16})(?!`)[^`][\\s\\S]*?\\1(?!`)|`+", Type: chroma.LiteralStringBacktick},
			{Pattern: `(\*\*|__)(?=\S)[^\n]*?\S\1`, Type: chroma.GenericStrong},
			{Pattern: `(?<![\p{L}\p{N}])([*_])(?=\S)[^\n*_]*?\S\1(?![\p{L}\p{N}])`, Type: chroma.GenericEmph},
			{Pattern: `~~(?=\S)[^\n]*?\S~~`, Type: chroma.GenericDeleted},
			{Pattern: `(!?\[)([^\[\]\n]*)(\]\()([^)\s]*)((?:\s+"[^"\n]*")?\))`, Type: chroma.ByGroups(chroma.Punctuation, chroma.NameTag, chroma.Punctuation, chroma.NameAttribute, chroma.Punctuation)},
			{Pattern: `<(?:https?|mailto):[^>\s]*>`, Type: chroma.NameAttribute},
			{Pattern: `\n`, Type: chroma.Text},
			anyChar,
		},
	}
}

// fencedCode colours a fenced code block: its fences as strings, its
// code as the language its info string names, else as text.
var fencedCode = chroma.EmitterFunc(func(groups []string, _ *chroma.LexerState) chroma.Iterator {
	open := groups[0][:len(groups[0])-len(groups[2])-len(groups[3])-len(groups[4])] // the indent and the fence
	info := strings.FieldsFunc(groups[2], func(r rune) bool { return unicode.IsSpace(r) || r == '{' || r == ',' })
	body := chroma.Literator(chroma.Token{Type: chroma.Text, Value: groups[3]})
	if len(info) > 0 {
		if l := langForAlias(strings.TrimPrefix(info[0], ".")); l != nil {
			if it, err := l.Lexer().Tokenise(&chroma.TokeniseOptions{State: "root", Nested: true}, groups[3]); err == nil {
				body = it
			}
		}
	}
	return chroma.Concaterator(
		chroma.Literator(chroma.Token{Type: chroma.LiteralString, Value: open + groups[2]}),
		body,
		chroma.Literator(chroma.Token{Type: chroma.LiteralString, Value: groups[4]}),
	)
})

// diffRules lex a unified or context diff line by line.
func diffRules() chroma.Rules {
	return chroma.Rules{"root": {
		{Pattern: `^(?:\+\+\+|---|\*\*\*)(?: .*|$)\n?`, Type: chroma.GenericHeading},
		{Pattern: `^(?:diff|index|Index|new file|deleted file|similarity|rename|old mode|new mode)\b.*\n?`, Type: chroma.GenericHeading},
		{Pattern: `^=+\n?`, Type: chroma.GenericHeading},
		{Pattern: `^@.*\n?`, Type: chroma.GenericSubheading},
		{Pattern: `^[+>].*\n?`, Type: chroma.GenericInserted},
		{Pattern: `^[-<].*\n?`, Type: chroma.GenericDeleted},
		{Pattern: `^!.*\n?`, Type: chroma.GenericStrong},
		{Pattern: `.*\n?`, Type: chroma.Text},
	}}
}

// makefileRules lex a Makefile: its recipes' lines as shell.
func makefileRules() chroma.Rules {
	return chroma.Rules{"root": {
		{Pattern: `^\t(?:[^\n\\]|\\[\s\S])*`, Type: chroma.UsingLexer(langShell.Lexer())},
		{Pattern: `\n|[ \t]+`, Type: chroma.Text}, // a line feed alone, so a recipe's tab starts a line
		hashComment,
		{Pattern: `^(?:ifeq|ifneq|ifdef|ifndef|else|endif|-?include|sinclude|override|export|unexport|define|endef|vpath)\b`, Type: chroma.Keyword},
		{Pattern: `^([^\s:#=][^:#=\n]*?)([ \t]*)(::?=|:::=|\?=|\+=|!=|=)`, Type: chroma.ByGroups(chroma.NameVariable, chroma.Text, chroma.Operator)},
		{Pattern: `^([^\s:#=][^:#=\n]*?)(::?)(?!=)`, Type: chroma.ByGroups(chroma.NameFunction, chroma.Operator)},
		{Pattern: `\$[({][^)}\n]*[)}]?|\$.`, Type: chroma.NameVariable},
		{Pattern: `[^\s$#]+`, Type: chroma.Text},
		anyChar,
	}}
}

// dockerfileRules lex a Dockerfile: its instructions, their arguments as
// shell.
func dockerfileRules() chroma.Rules {
	return chroma.Rules{"root": {
		spaces,
		{Pattern: `^#.*`, Type: chroma.CommentSingle},
		{Pattern: `(?i)^(FROM|RUN|CMD|LABEL|MAINTAINER|EXPOSE|ENV|ADD|COPY|ENTRYPOINT|VOLUME|USER|WORKDIR|ARG|ONBUILD|STOPSIGNAL|HEALTHCHECK|SHELL)\b((?:[^\n\\]|\\[\s\S])*)`,
			Type: chroma.ByGroups(chroma.Keyword, chroma.UsingLexer(langShell.Lexer()))},
		{Pattern: `.+`, Type: chroma.Text},
		anyChar,
	}}
}

// rustRules lex Rust.
func rustRules() chroma.Rules {
	w := newWords(true, map[chroma.TokenType]string{
		chroma.Keyword: "as async await break const continue crate dyn else enum extern fn for if impl in let " +
			"loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while",
		chroma.KeywordType: "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str " +
			"String Vec Option Result Box Rc Arc HashMap",
		chroma.KeywordConstant: "true false",
		chroma.NameBuiltin:     "Some None Ok Err",
	})
	return chroma.Rules{"root": {
		spaces,
		{Pattern: `b?r(#*)"[\s\S]*?(?:"\1|\z)`, Type: chroma.LiteralString},
		{Pattern: `b?'(?:\\(?:[nrt0'"\\]|x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\})|[^'\\\n])'`, Type: chroma.LiteralStringChar},
		{Pattern: `'` + identPattern, Type: chroma.NameLabel},
		{Pattern: `b?"[^"\\]*(?:\\[\s\S][^"\\]*)*"?`, Type: chroma.LiteralStringDouble},
		typeDefinition("struct enum trait union"),
		{Pattern: identPattern + `!`, Type: chroma.NameBuiltin},
		identifierFor(w),
		lineComment, blockComment,
		{Pattern: `#!?\[[^\]\n]*\]?`, Type: chroma.NameDecorator},
		number,
		cOperator, cPunctuation,
		anyChar,
	}}
}

// javaRules lex Java.
func javaRules() chroma.Rules {
	w := newWords(true, map[chroma.TokenType]string{
		chroma.Keyword: "abstract assert break case catch class continue default do else enum extends final " +
			"finally for if implements import instanceof interface native new package private protected public " +
			"return static strictfp super switch synchronized this throw throws transient try var volatile while " +
			"record sealed permits yield non-sealed",
		chroma.KeywordType:     "boolean byte char double float int long short void",
		chroma.KeywordConstant: "true false null",
	})
	return chroma.Rules{"root": {
		spaces,
		typeDefinition("class interface enum record"),
		identifierFor(w),
		{Pattern: `"""[\s\S]*?(?:"""|\z)`, Type: chroma.LiteralString},
		doubleQuoted,
		{Pattern: `'(?:\\[^'\n]+|[^'\\\n])'`, Type: chroma.LiteralStringChar},
		lineComment, blockComment,
		{Pattern: `@` + identPattern + `(?:\.` + identPattern + `)*`, Type: chroma.NameDecorator},
		number,
		cOperator, cPunctuation,
		anyChar,
	}}
}

// cRules lex C, and C++ when cpp.
func cRules(cpp bool) chroma.Rules {
	lists := map[chroma.TokenType]string{
		chroma.Keyword: "auto break case const continue default do else enum extern for goto if inline register " +
			"restrict return sizeof static struct switch typedef union volatile while _Alignas _Alignof _Atomic " +
			"_Bool _Generic _Noreturn _Static_assert _Thread_local",
		chroma.KeywordType: "bool char double float int long short signed unsigned void size_t ssize_t ptrdiff_t " +
			"int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t wchar_t FILE",
		chroma.KeywordConstant: "true false NULL",
	}
	if cpp {
		lists[chroma.Keyword] += " alignas alignof catch class constexpr consteval constinit const_cast decltype " +
			"delete dynamic_cast explicit export friend mutable namespace new noexcept operator private protected " +
			"public reinterpret_cast static_assert static_cast template this throw try typeid typename using " +
			"virtual override final co_await co_return co_yield concept requires"
		lists[chroma.KeywordConstant] += " nullptr"
		lists[chroma.KeywordType] += " char8_t char16_t char32_t"
	}
	w := newWords(true, lists)
	return chroma.Rules{"root": {
		spaces,
		{Pattern: `(?=#)(?<=^[ \t]*)(#[ \t]*include)([ \t]*)(<[^>\n]*>?|"[^"\n]*"?)`, Type: chroma.ByGroups(chroma.CommentPreproc, chroma.Text, chroma.CommentPreprocFile)},
		{Pattern: `(?=#)(?<=^[ \t]*)#(?:[^\n\\/]|\\[\s\S]|/(?![/*]))*`, Type: chroma.CommentPreproc},
		{Pattern: `(?:u8|[uUL])?R"([^(\s]{0,16})\([\s\S]*?(?:\)\1"|\z)`, Type: chroma.LiteralString},
		{Pattern: `(?:u8|[uUL])?"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"?`, Type: chroma.LiteralStringDouble},
		{Pattern: `(?:u8|[uUL])?'(?:\\[^'\n]+|[^'\\\n])'`, Type: chroma.LiteralStringChar},
		typeDefinition("struct union enum class"),
		identifierFor(w),
		lineComment, blockComment,
		{Pattern: `[0-9]+(?:'[0-9]+)+`, Type: chroma.LiteralNumber},
		number,
		cOperator, cPunctuation,
		anyChar,
	}}
}
