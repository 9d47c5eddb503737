// make-reference.mjs writes the reference the token counts are tested
// against (mcp/doctor/tokens): the counts of OpenAI's own tokenizer, npm
// tiktoken at the pinned version, in o200k_base.
//
//   corpus.jsonl    texts with whitespace runs, CJK, emoji, code and
//                   prose, each with its token count
//   reencode.jsonl  tool lists and values as servers write them (escapes,
//                   Python's separators, numbers in odd spellings), each
//                   with JSON.stringify(JSON.parse(raw)) — what a client
//                   that decodes and re-encodes the list sends — and that
//                   text's token count
//
// The texts are made from a seeded generator, so a run writes the same
// files again. Run it from the repository's root with tiktoken installed
// anywhere outside the repository:
//
//   npm install --prefix /tmp/tiktoken tiktoken@1.0.22
//   TIKTOKEN_DIR=/tmp/tiktoken node mcp/doctor/tokens/testdata/make-reference.mjs

import { createRequire } from "node:module";
import { writeFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PINNED = "1.0.22";
const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.env.TIKTOKEN_DIR;
if (!dir) {
  console.error("set TIKTOKEN_DIR to where tiktoken@" + PINNED + " is installed (npm install --prefix DIR tiktoken@" + PINNED + ")");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(dir), "index.js"));
const version = JSON.parse(readFileSync(path.join(path.resolve(dir), "node_modules", "tiktoken", "package.json"), "utf8")).version;
if (version !== PINNED) {
  console.error(`tiktoken ${version} is installed, the reference is made with ${PINNED}`);
  process.exit(2);
}
const { get_encoding } = require("tiktoken");
const enc = get_encoding("o200k_base");
const count = (s) => enc.encode_ordinary(s).length;

// mulberry32: a small seeded generator, so the corpus is the same on
// every run.
let seed = 0x5eed33;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

// Whitespace: every kind the pre-tokenizer pattern treats apart (newlines,
// spaces, tabs) and the Unicode spaces \s also matches.
const spaces = [" ", "  ", "   ", "    ", "\t", "\t\t", " \t", "\u00a0", "\u3000", "\u2003", "\u202f", "\u000b", "\f"];
const newlines = ["\n", "\n", "\n", "\r\n", "\n\n", "\r", "\u2028", "\u0085"];
function wsRun() {
  let s = "";
  for (let i = int(1, 5); i > 0; i--) s += rand() < 0.5 ? pick(spaces) : pick(newlines);
  return s;
}

const words = ["the", "The", "tool", "returns", "a", "list", "of", "files", "HTTP", "JSON", "don't", "it's", "WE'LL", "they're", "I'm", "you'd", "O'Neil",
  "naïve", "café", "cafe\u0301", "Straße", "ÉCOLE", "über", "getWeather", "snake_case", "kebab-case", "CamelCase", "XMLHttpRequest", "iPhone"];
const scripts = ["Привет мир", "Καλημέρα κόσμε", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก", "안녕하세요 세계", "Xin chào thế giới", "Dzień dobry", "Ελληνικά"];
const cjk = ["天气预报", "今日は良い天気ですね", "東京都の天気を取得します。", "검색 결과를 반환합니다", "文件列表", "「引用」と『書名』",
  "ツールの説明：ファイルを読み込む。", "用户名称（必填）", "中文、日本語、한국어", "一二三四五六七八九十", "ｆｕｌｌ　ｗｉｄｔｈ", "漢字かなカナ"];
const emoji = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇯🇵", "🇺🇸🇫🇷", "❤️", "✅", "🚀✨", "1️⃣", "🏳️‍🌈", "🤖", "☕️", "🧑🏿‍💻", "🫠", "⚠️"];
const punct = [".", ",", "!", "?", ":", ";", "...", "—", "–", "(", ")", "[", "]", "{", "}", "\"", "'", "’", "“", "”", "/", "//", "#", "->", "=>", "==", "!=", "&&", "<", ">", "&", "\\", "%", "$", "@", "*", "**", "`", "```", "|", "\x7f", "\x01", "\u00ad"];
const numbers = () => pick([String(int(0, 9)), String(int(10, 999)), String(int(1000, 99999999)), (rand() * 1000).toFixed(int(1, 6)), "1,000,000", "2026-12-03", "3.14159", "0x1F", "1e-7", "١٢٣", "²", "½", "Ⅻ"]);

function mixed(pool) {
  let s = "";
  for (let i = int(3, 30); i > 0; i--) {
    const r = rand();
    if (r < 0.35) s += pick(pool)();
    else if (r < 0.55) s += " ";
    else if (r < 0.75) s += wsRun();
    else if (r < 0.9) s += pick(punct);
    else s += numbers();
  }
  return s;
}

const idents = ["x", "y", "result", "items", "i", "name", "value", "self", "ctx", "err", "data", "f", "client", "response"];
function codeLine(lang) {
  const id = pick(idents), id2 = pick(idents);
  switch (lang) {
    case "py": return pick([`def ${id}(${id2}):`, `${id} = ${id2} + ${int(1, 99)}`, `return ${id}`, `for ${id} in ${id2}:`, `if not ${id}:`, `# ${pick(words)} ${pick(words)}`, `print(f"{${id}!r}")`, `class ${id[0].toUpperCase() + id.slice(1)}:`, `"""${pick(words)} ${pick(cjk)}"""`, `${id}.append(${id2})`, "pass", "raise ValueError('bad')"]);
    case "js": return pick([`function ${id}(${id2}) {`, `const ${id} = ${id2}.map((v) => v * ${int(2, 9)});`, `return ${id};`, "}", `if (${id} === null) {`, `// ${pick(words)} ${pick(emoji)}`, `await ${id}.send({ ${id2} });`, "});", `console.log(\`\${${id}}\`);`]);
    case "go": return pick([`func ${id}(${id2} int) error {`, `if err != nil {`, `\treturn fmt.Errorf("${pick(words)}: %w", err)`, "}", `${id} := make([]string, 0, ${int(1, 64)})`, `// ${pick(words)} ${pick(words)}.`, `for _, ${id} := range ${id2} {`]);
    case "yaml": return pick([`${id}:`, `  - ${pick(words)}`, `  ${id2}: ${int(0, 100)}`, `# ${pick(cjk)}`, `${id}: "${pick(emoji)}"`]);
    default: return pick([`# ${pick(words)}`, `- ${pick(words)} ${pick(words)}`, "```", `| ${id} | ${id2} |`, "|---|---|", `> ${pick(scripts)}`, `**${pick(words)}**`]);
  }
}
function code() {
  const lang = pick(["py", "js", "go", "yaml", "md"]);
  const unit = pick(["    ", "  ", "\t"]);
  let s = "", depth = 0;
  for (let i = int(2, 14); i > 0; i--) {
    depth = Math.max(0, Math.min(4, depth + int(-1, 1)));
    const r = rand();
    // Blank lines as editors leave them: empty, indented, or with
    // trailing spaces; the indented kind is where the pattern's
    // backtracking matters.
    if (r < 0.15) s += unit.repeat(depth) + "\n";
    else if (r < 0.22) s += "\n";
    else s += unit.repeat(depth) + codeLine(lang) + (rand() < 0.1 ? "  " : "") + (rand() < 0.1 ? "\r\n" : "\n");
  }
  return rand() < 0.3 ? s.replace(/\n$/, "") : s;
}

function prettyJSON() {
  const v = { name: pick(idents), description: pick(words) + " " + pick(cjk), tags: [pick(emoji), pick(words)], count: int(0, 1000), nested: { ok: rand() < 0.5, ratio: Number((rand()).toFixed(3)) } };
  return JSON.stringify(v, null, pick([2, 4, "\t"])) + (rand() < 0.5 ? "\n" : "");
}

const gens = [
  [0.22, () => mixed([() => pick(words), () => pick(words) + " " + pick(words)])],
  [0.2, code],
  [0.12, () => mixed([() => pick(cjk), () => pick(words)])],
  [0.1, () => mixed([() => pick(emoji), () => pick(words), () => pick(cjk)])],
  [0.1, () => mixed([() => pick(scripts), () => pick(words)])],
  [0.08, prettyJSON],
  [0.08, () => { let s = ""; for (let i = int(1, 6); i > 0; i--) s += wsRun() + (rand() < 0.7 ? pick([...words, ...punct, ...cjk, ...emoji]) : ""); return s; }],
  [0.1, () => mixed([() => pick(words), () => pick(cjk), () => pick(emoji), () => pick(scripts), numbers, () => pick(punct) + pick(punct)])],
];
function generate() {
  let r = rand();
  for (const [p, g] of gens) {
    if (r < p) return g();
    r -= p;
  }
  return gens[0][1]();
}

// Cases written out: the whitespace runs where a split without the
// pattern's backtracking goes wrong, texts that start or end in
// whitespace, and DEL.
const fixed = [
  "def f():\n    x = 1\n    \n    return x\n",
  "a\n  \nb", "a\n\t\nb", "x \n\n y", "\n \n", " \n \n ", "\n\n\n", "\r\n  \r\n", "a\n \n \n \nb",
  "if x:\n    pass\n    \n\n    \nelse:\n    y\n", "{\n  \"a\": 1,\n  \n  \"b\": 2\n}", "text:\n \n after", "!\n \n \n x",
  "end with spaces   ", "   start with spaces", "\n", " ", "\t", "", "a\u00a0\n\u00a0\nb", "行\n\u3000\n行", "😀\n  \n😀",
  "hello world", "it's they're WE'LL", "naïve cafe\u0301", "1234567", "\u2028\u2029", "a\r\n\r\n  \r\nb",
  // DEL, which a generated matcher skips.
  "a\x7fb", " del \x7f\",\"", "\x7f\x7f", "x = \"\x7f\"\n",
];

const texts = [...fixed];
const seen = new Set(texts);
while (texts.length < 3200) {
  const t = generate();
  if (t.length === 0 || seen.has(t)) continue;
  seen.add(t);
  texts.push(t);
}

const meta = { tokenizer: "tiktoken", version: PINNED, encoding: "o200k_base", texts: texts.length };
writeFileSync(path.join(here, "corpus.jsonl"),
  [JSON.stringify(meta), ...texts.map((text) => JSON.stringify({ text, tokens: count(text) }))].join("\n") + "\n");

// Python's json.dumps by default: every non-ASCII character as \uXXXX
// (astral ones as a surrogate pair) and ", " / ": " between members.
const pyDumps = (v) => JSON.stringify(v, null, 0)
  .replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"))
  .replace(/,"/g, ", \"").replace(/":/g, "\": ");
const cjkTool = {
  name: "get_weather",
  description: "指定された都市の現在の天気と、今後三日間の天気予報を取得します。気温は摂氏で返されます。",
  inputSchema: { type: "object", properties: { city: { type: "string", description: "都市名（例：東京、大阪、札幌）" }, days: { type: "integer", minimum: 1, maximum: 3, description: "予報の日数" } }, required: ["city"] },
};
const raws = [
  pyDumps(cjkTool),
  JSON.stringify(cjkTool),
  pyDumps({ name: "emoji", description: "Returns 😀 or 👨‍👩‍👧 — “quoted” ‘text’", inputSchema: { type: "object" } }),
  // Escapes a client decodes, and the ones JSON.stringify writes back.
  String.raw`{"name":"esc","description":"slash \/ tab \t nl \n cr \r bs \b ff \f q \" bsl \\ ctl \u0001 \u001f del \u007f","x":"\u003ctag\u003e \u0026 <raw> & \u2028 \u2029 \u00e9 e\u0301"}`,
  String.raw`{"lone":"\ud800 high \udfff low \ud83d\ude00 pair \uD83D\uDE00 upper","s":"\u0000"}`,
  // Numbers the way JSON.parse and JSON.stringify round them.
  String.raw`{"n":[1.0, 1.50, -0, 0.0, 1e2, 1E+2, 1e21, 1e-7, 1.5e-6, 123456789012345678901234, 0.1, 100, -3.25e10, 2.5E-3, 1e400, 9007199254740993, 5e-324, 1.7976931348623157e308, 0.000001, 123e-20]}`,
  // A repeated key keeps its first place and its last value; keys that
  // are array indices come first, in numeric order.
  String.raw`{"b":1,"a":2,"b":3,"10":"ten","2":"two","01":"not an index","-1":"neither","4294967295":"too big","4294967294":"largest index"}`,
  " {\n  \"name\" : \"spaced\" ,\n  \"inputSchema\" : { \"type\" : \"object\" , \"properties\" : { } } ,\n  \"annotations\" : {\"readOnlyHint\" : true, \"x\": null, \"y\": false}\n}\n",
  String.raw`[{"name":"a\u0062c"},[],{},"",0,[[1,[2,{"k":"\u4e2d\u6587"}]]]]`,
];
writeFileSync(path.join(here, "reencode.jsonl"),
  raws.map((raw) => {
    const client = JSON.stringify(JSON.parse(raw));
    return JSON.stringify({ raw, client, tokens: count(client), raw_tokens: count(raw) });
  }).join("\n") + "\n");
enc.free();
console.log(`corpus.jsonl: ${texts.length} texts; reencode.jsonl: ${raws.length} values (tiktoken ${version})`);
