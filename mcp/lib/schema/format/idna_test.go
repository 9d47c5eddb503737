package format

import (
	"strings"
	"testing"
)

// realLabels are labels in use: IDN top-level domains and the IANA test
// labels, each as a U-label and the A-label Python's punycode codec makes
// of it. Right-to-left ones (Arabic, Hebrew, Persian, Urdu, Sindhi), Indic
// ones with viramas and vowel signs, CJK, Cyrillic, Greek, Georgian,
// Armenian and Latin with diacritics.
var realLabels = []struct{ u, a string }{
	{"рф", "xn--p1ai"},
	{"бел", "xn--90ais"},
	{"укр", "xn--j1amh"},
	{"中国", "xn--fiqs8s"},
	{"中國", "xn--fiqz9s"},
	{"公司", "xn--55qx5d"},
	{"网络", "xn--io0a7i"},
	{"مصر", "xn--wgbh1c"},
	{"امارات", "xn--mgbaam7a8h"},
	{"فلسطين", "xn--ygbi2ammx"},
	{"ישראל", "xn--4dbrk0ce"},
	{"ไทย", "xn--o3cw4h"},
	{"भारत", "xn--h2brj9c"},
	{"ভারত", "xn--45brj9c"},
	{"ભારત", "xn--gecrj9c"},
	{"ਭਾਰਤ", "xn--s9brj9c"},
	{"இந்தியா", "xn--xkc2dl3a5ee0h"},
	{"భారత్", "xn--fpcrj9c3d"},
	{"한국", "xn--3e0b707e"},
	{"台湾", "xn--kprw13d"},
	{"香港", "xn--j6w193g"},
	{"قطر", "xn--wgbl6a"},
	{"السعودية", "xn--mgberp4a5d4ar"},
	{"الجزائر", "xn--lgbbat1ad8j"},
	{"المغرب", "xn--mgbc0a9azcg"},
	{"تونس", "xn--pgbs0dh"},
	{"سورية", "xn--ogbpf8fl"},
	{"الاردن", "xn--mgbayh7gpa"},
	{"გე", "xn--node"},
	{"հայ", "xn--y9a3aq"},
	{"ελ", "xn--qxam"},
	{"ею", "xn--e1a4c"},
	{"عراق", "xn--mgbtx2b"},
	{"عمان", "xn--mgb9awbf"},
	{"澳門", "xn--mix891f"},
	{"мкд", "xn--d1alf"},
	{"мон", "xn--l1acc"},
	{"қаз", "xn--80ao21a"},
	{"বাংলা", "xn--54b7fta0cc"},
	{"ලංකා", "xn--fzc2c9e2c"},
	{"இலங்கை", "xn--xkc2al3hye2a"},
	{"சிங்கப்பூர்", "xn--clchc0ea0b2g2a9gcd"},
	{"新加坡", "xn--yfro4i67o"},
	{"مليسيا", "xn--mgbx4cd0ab"},
	{"پاکستان", "xn--mgbai9azgqp6j"},
	{"ایران", "xn--mgba3a4f16a"},
	{"世界", "xn--rhqv96g"},
	{"みんな", "xn--q9jyb4c"},
	{"ευ", "xn--qxa6a"},
	{"бг", "xn--90ae"},
	{"ಭಾರತ", "xn--2scrj9c"},
	{"ഭാരതം", "xn--rvc1e0am3e"},
	{"भारतम्", "xn--h2breg3eve"},
	{"بھارت", "xn--mgbbh1a71e"},
	{"ڀارت", "xn--mgbgu82a"},
	{"ଭାରତ", "xn--3hcrj9c"},
	{"アマゾン", "xn--cckwcxetd"},
	{"ポイント", "xn--eckvdtc9d"},
	{"شبكة", "xn--ngbc5azd"},
	{"كوم", "xn--fhbei"},
	{"コム", "xn--tckwe"},
	{"орг", "xn--c1avg"},
	{"онлайн", "xn--80asehdb"},
	{"сайт", "xn--80aswg"},
	{"дети", "xn--d1acj3b"},
	{"münchen", "xn--mnchen-3ya"},
	{"bücher", "xn--bcher-kva"},
	{"españa", "xn--espaa-rta"},
	{"façade", "xn--faade-zra"},
	{"straße", "xn--strae-oqa"},
	{"ñandú", "xn--and-6ma2c"},
	{"παράδειγμα", "xn--hxajbheg2az3al"},
	{"пример", "xn--e1afmkfd"},
	{"例え", "xn--r8jz45g"},
	{"テスト", "xn--zckzah"},
	{"δοκιμή", "xn--jxalpdlp"},
	{"சோதனை", "xn--hlcup8jma"},
	{"परीक्षा", "xn--11b5bs3a9aj6g"},
	{"טעסט", "xn--deba0ad"},
	{"آزمایشی", "xn--hgbk6aj7f53bba"},
	{"dành-cho", "xn--dnh-cho-8va"},
	{"việtnam", "xn--vitnam-jk8b"},
}

func TestRealLabelsAreValid(t *testing.T) {
	for _, l := range realLabels {
		for _, name := range []string{l.a + ".example", "www." + l.a, l.a} {
			if ok, _ := Check("hostname", name); !ok {
				t.Errorf("hostname %q (%s) refused", name, l.u)
			}
			if ok, _ := Check("idn-hostname", name); !ok {
				t.Errorf("idn-hostname %q (%s) refused", name, l.u)
			}
		}
		for _, name := range []string{l.u + ".example", "www." + l.u, l.u} {
			if ok, _ := Check("idn-hostname", name); !ok {
				t.Errorf("idn-hostname %q refused", name)
			}
			if ok, _ := Check("hostname", name); ok {
				t.Errorf("hostname %q accepted: a U-label is not ASCII", name)
			}
		}
		if ok, _ := Check("idn-email", "info@"+l.u); !ok {
			t.Errorf("idn-email info@%s refused", l.u)
		}
	}
}

// What IDNA2008 asks beyond x/net/idna's UTS #46 profile, and the
// leniencies kept, each shown to hold.
func TestIDNA2008BeyondUTS46(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
		why  string
	}{
		{"xn--7a.example", false, "U+00A1, a symbol UTS #46 allows (NV8), IDNA2008 does not"},
		{"a\u00A1b.example", false, "the same as a U-label"},
		{"\u2665.example", false, "a symbol"},
		{"\u0640.example", false, "ARABIC TATWEEL, DISALLOWED by RFC 5892's exceptions"},
		{"\uC2E4\u302E\uB840.example", false, "HANGUL SINGLE DOT TONE MARK, DISALLOWED by the exceptions"},
		{"stra\u00DFe.example", true, "sharp s, PVALID by the exceptions"},
		{"l\u00B7l.example", true, "MIDDLE DOT between two l's (Catalan)"},
		{"a\u00B7l.example", false, "MIDDLE DOT not after an l"},
		{"\u03B1\u0375\u03B2.example", true, "KERAIA before a Greek letter"},
		{"\u03B1\u0375.example", false, "KERAIA before nothing"},
		{"\u05D0\u05F3.example", true, "GERESH after a Hebrew letter"},
		{"\u05F3\u05D1.example", false, "GERESH after nothing"},
		{"\u30A2\u30FB\u30A4.example", true, "KATAKANA MIDDLE DOT with Katakana"},
		{"def\u30FBabc.example", false, "KATAKANA MIDDLE DOT without Hiragana, Katakana or Han"},
		{"\u0628\u0660\u06F0.example", false, "Arabic-Indic and extended Arabic-Indic digits mixed"},
		{"\u0628\u0660\u0661.example", true, "Arabic-Indic digits alone"},
		{"-b\u00FCcher.example", false, "a U-label starting with a hyphen"},
		{"b\u00FC--cher.example", false, "a U-label with hyphens in its third and fourth places"},
		{"ab--cd.example", true, "an ASCII label with them: a host name's"},
		{"example.", false, "a trailing dot"},
		{"example\u3002", false, "a trailing ideographic full stop"},
		{"b\u00FCcher\uFF0Eexample", true, "a fullwidth full stop between labels"},
		{"B\u00DCCHER.example", true, "upper case, folded as resolvers fold it"},
		{"cafe\u0301.example", true, "not in NFC (e and a combining accent)"},
		{"\u212Bngstr\u00F6m.example", false, "the Angstrom sign, which NFC replaces"},
		{strings.Repeat("\u00FC", 60) + ".example", false, "a label over 63 octets as an A-label"},
		{"", false, "empty"},
	} {
		if got, _ := Check("idn-hostname", c.name); got != c.ok {
			t.Errorf("idn-hostname %q = %v, want %v: %s", c.name, got, c.ok, c.why)
		}
	}
}
