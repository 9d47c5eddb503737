package format

import (
	"testing"
	"unicode"
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

// TestPunycodeRoundTrips: each U-label encodes to the A-label Python makes
// and decodes back.
func TestPunycodeRoundTrips(t *testing.T) {
	for _, l := range realLabels {
		runes := []rune(l.u)
		var enc [59]byte
		n, ok := punyEncode(runes, enc[:])
		if !ok || "xn--"+string(enc[:n]) != l.a {
			t.Errorf("punyEncode(%s) = %q, %v; want %s", l.u, enc[:n], ok, l.a)
		}
		var dec [maxLabelRunes]rune
		m, ok := punyDecode(l.a[4:], &dec)
		if !ok || string(dec[:m]) != l.u {
			t.Errorf("punyDecode(%s) = %q, %v; want %s", l.a, string(dec[:m]), ok, l.u)
		}
	}
}

// TestTablesAreSorted: the binary searches need ranges in order, each
// lo <= hi, none overlapping.
func TestTablesAreSorted(t *testing.T) {
	prev := rune(-1)
	for i, r := range unstableRanges {
		if r[0] > r[1] || r[0] <= prev {
			t.Errorf("unstableRanges[%d] = %#x-%#x after %#x", i, r[0], r[1], prev)
		}
		prev = r[1]
	}
	prev = -1
	for i, e := range bidiExceptions {
		if e.lo > e.hi || e.lo <= prev {
			t.Errorf("bidiExceptions[%d] = %#x-%#x after %#x", i, e.lo, e.hi, prev)
		}
		prev = e.hi
	}
	for _, c := range []struct {
		r    rune
		want int
	}{{'א', bidiR}, {'ب', bidiR}, {'٣', bidiAN}, {'۳', bidiEN}, {'é', bidiL}, {'\u0301', bidiNSM}, {'\u0CBF', bidiL}, {'\u02B9', bidiON}, {'\U00010D30', bidiAN}} {
		if got := bidiClass(c.r); got != c.want {
			t.Errorf("bidiClass(%U) = %d, want %d", c.r, got, c.want)
		}
	}
	for _, r := range []rune{'\u212A', '\uFB01', '\U0001D400', '\u0958', '\uFF41'} {
		if !isUnstable(r) {
			t.Errorf("%U is not Unstable", r)
		}
	}
	for _, r := range []rune{'é', 'ü', 'Ü', 'ア', '中', '\u0301'} {
		if isUnstable(r) {
			t.Errorf("%U is Unstable", r)
		}
	}
}

// TestNewerLettersAreValid: letters Unicode added after Go's tables (CJK
// Extension I, Unicode 15.1; Garay, 16.0) are PVALID, not unassigned.
func TestNewerLettersAreValid(t *testing.T) {
	for _, r := range []rune{0x2EBF0, 0x2EE5D, 0x10D70} {
		if unicode.In(r, unicode.L) {
			t.Skipf("%U is known to Go's tables now; newerPVALID can shrink", r)
		}
		if p := idnaProperty(r); p != pvalid {
			t.Errorf("idnaProperty(%U) = %d, want PVALID", r, p)
		}
	}
	if p := idnaProperty(0x1E030); p != disallowed {
		t.Errorf("U+1E030 (a Cyrillic modifier letter, compatibility superscript) is %d, want DISALLOWED", p)
	}
}
