package format

// Punycode (RFC 3492), the encoding of an IDNA A-label's tail, written for
// labels: at most 63 octets, so everything fits in fixed arrays on the
// stack and the quadratic steps of the algorithm stay small.

const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
	maxLabelRunes = 64
)

func pcAdapt(delta, numPoints int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > (pcBase-pcTMin)*pcTMax/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}

func pcThreshold(k, bias int) int {
	switch {
	case k <= bias:
		return pcTMin
	case k >= bias+pcTMax:
		return pcTMax
	}
	return k - bias
}

// punyDecode decodes s (an A-label without "xn--") into out, returning the
// number of code points, or false when s is not valid Punycode or decodes
// to more than len(out) code points.
func punyDecode(s string, out *[maxLabelRunes]rune) (int, bool) {
	n, bias, i, count := pcInitialN, pcInitialBias, 0, 0
	b := -1
	for j := len(s) - 1; j >= 0; j-- {
		if s[j] == '-' {
			b = j
			break
		}
	}
	if b >= 0 {
		if b > len(out) {
			return 0, false
		}
		for j := 0; j < b; j++ {
			if s[j] >= 0x80 {
				return 0, false
			}
			out[count] = rune(s[j])
			count++
		}
		s = s[b+1:]
	}
	for p := 0; p < len(s); {
		oldi, w := i, 1
		for k := pcBase; ; k += pcBase {
			if p == len(s) {
				return 0, false
			}
			c := s[p]
			p++
			var digit int
			switch {
			case 'a' <= c && c <= 'z':
				digit = int(c - 'a')
			case 'A' <= c && c <= 'Z':
				digit = int(c - 'A')
			case '0' <= c && c <= '9':
				digit = int(c-'0') + 26
			default:
				return 0, false
			}
			if digit > (1<<30-i)/w {
				return 0, false // overflow
			}
			i += digit * w
			t := pcThreshold(k, bias)
			if digit < t {
				break
			}
			if w > (1<<30)/(pcBase-t) {
				return 0, false
			}
			w *= pcBase - t
		}
		if count == len(out) {
			return 0, false
		}
		bias = pcAdapt(i-oldi, count+1, oldi == 0)
		n += i / (count + 1)
		i %= count + 1
		if n > 0x10FFFF || 0xD800 <= n && n <= 0xDFFF {
			return 0, false
		}
		copy(out[i+1:count+1], out[i:count])
		out[i] = rune(n)
		count++
		i++
	}
	return count, true
}

// punyEncode encodes runes into out and returns the length, or false when
// the encoding does not fit in out.
func punyEncode(runes []rune, out []byte) (int, bool) {
	o := 0
	put := func(c byte) bool {
		if o == len(out) {
			return false
		}
		out[o] = c
		o++
		return true
	}
	basic := 0
	for _, r := range runes {
		if r < 0x80 {
			if !put(byte(r)) {
				return 0, false
			}
			basic++
		}
	}
	if basic > 0 && !put('-') {
		return 0, false
	}
	n, delta, bias, h := pcInitialN, 0, pcInitialBias, basic
	for h < len(runes) {
		m := rune(0x7FFFFFFF)
		for _, r := range runes {
			if int(r) >= n && r < m {
				m = r
			}
		}
		delta += (int(m) - n) * (h + 1)
		n = int(m)
		for _, r := range runes {
			if int(r) < n {
				delta++
			}
			if int(r) != n {
				continue
			}
			q := delta
			for k := pcBase; ; k += pcBase {
				t := pcThreshold(k, bias)
				if q < t {
					break
				}
				if !put(pcDigit(t + (q-t)%(pcBase-t))) {
					return 0, false
				}
				q = (q - t) / (pcBase - t)
			}
			if !put(pcDigit(q)) {
				return 0, false
			}
			bias = pcAdapt(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return o, true
}

func pcDigit(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}
