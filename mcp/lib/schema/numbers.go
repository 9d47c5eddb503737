package schema

// Exact JSON numbers for the validator: instances arrive as json.Number
// text, and minimum, multipleOf and the rest must judge them exactly
// (0.3 is a multiple of 0.1, 1.0 is an integer, 2^64+1 is not 2^64). A
// number is kept as its decimal digits and a power of ten, so a hostile
// exponent (1e999999999) costs nothing until it has to be multiplied out,
// and then only as far as the answer needs.

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// decimal is 0.digits × 10^exp, negated when neg. digits has no leading or
// trailing zeros; zero has no digits.
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// maxExp bounds exponents: beyond it a number is too large or too small
// for any schema to tell apart, and it keeps arithmetic on exponents from
// overflowing.
const maxExp = 1 << 40

// parseDecimal reads a JSON number's text.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	point := -1
	count := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if point >= 0 {
				return d, false
			}
			point = count
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		count++
	}
	mantissa := s[start:i]
	if point >= 0 {
		// Only a fraction needs a copy without its point.
		mantissa = mantissa[:point] + mantissa[point+1:]
	}
	if count == 0 {
		return d, false
	}
	if point < 0 {
		point = count
	}
	exp := int64(0)
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return d, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return d, false
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return d, false
			}
			if exp < maxExp {
				exp = exp*10 + int64(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	all := mantissa
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	all = strings.TrimRight(all, "0")
	if all == "" {
		return decimal{}, true
	}
	e := int64(point-lead) + exp
	if e > maxExp {
		e = maxExp
	} else if e < -maxExp {
		e = -maxExp
	}
	d.digits, d.exp = all, int(e)
	return d, true
}

// numberOf reads an instance number (json.Number or float64); ok is false
// for anything else, NaN and the infinities included.
func numberOf(v any) (decimal, bool) {
	switch n := v.(type) {
	case json.Number:
		return parseDecimal(string(n))
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return decimal{}, false
		}
		return parseDecimal(strconv.FormatFloat(n, 'g', -1, 64))
	}
	return decimal{}, false
}

func (d decimal) isZero() bool { return d.digits == "" }

// isInt: every digit sits before the point.
func (d decimal) isInt() bool { return d.digits == "" || len(d.digits) <= d.exp }

// cmp compares d and o: -1, 0 or 1.
func (d decimal) cmp(o decimal) int {
	switch {
	case d.isZero() && o.isZero():
		return 0
	case d.isZero():
		if o.neg {
			return 1
		}
		return -1
	case o.isZero():
		if d.neg {
			return -1
		}
		return 1
	case d.neg != o.neg:
		if d.neg {
			return -1
		}
		return 1
	}
	c := d.cmpMagnitude(o)
	if d.neg {
		return -c
	}
	return c
}

func (d decimal) cmpMagnitude(o decimal) int {
	if d.exp != o.exp {
		if d.exp > o.exp {
			return 1
		}
		return -1
	}
	// Same exponent: the digit strings compare as fractions; with no
	// trailing zeros a longer string with the same prefix is larger.
	n := min(len(d.digits), len(o.digits))
	if c := strings.Compare(d.digits[:n], o.digits[:n]); c != 0 {
		return c
	}
	switch {
	case len(d.digits) > len(o.digits):
		return 1
	case len(d.digits) < len(o.digits):
		return -1
	}
	return 0
}

// maxMultipleDigits bounds the digits multipleOf multiplies out; numbers
// longer than that are judged in floating point (no schema needs more).
const maxMultipleDigits = 4000

// isMultipleOf reports whether d / m is an integer (m > 0).
func (d decimal) isMultipleOf(m decimal) bool {
	if d.isZero() {
		return true
	}
	if m.isZero() {
		return false
	}
	if len(d.digits)+len(m.digits) > maxMultipleDigits {
		df, _ := strconv.ParseFloat(d.String(), 64)
		mf, _ := strconv.ParseFloat(m.String(), 64)
		q := df / mf
		return !math.IsInf(q, 0) && q == math.Trunc(q)
	}
	// d = D × 10^a and m = M × 10^b with D and M whole numbers, so
	// d / m = D / M × 10^(a-b).
	k := (d.exp - len(d.digits)) - (m.exp - len(m.digits))
	if k >= 0 && len(d.digits)+k <= 18 && len(m.digits) <= 18 {
		// The common case fits a uint64: 7.5 and 0.5, 300 and 25.
		dx, _ := strconv.ParseUint(d.digits, 10, 64)
		mx, _ := strconv.ParseUint(m.digits, 10, 64)
		for range k {
			dx *= 10
		}
		return dx%mx == 0
	}
	dx, _ := new(big.Int).SetString(d.digits, 10)
	mx, _ := new(big.Int).SetString(m.digits, 10)
	if k >= 0 {
		// Beyond the powers of 2 and 5 in M, more factors of ten cannot
		// change divisibility (what is left of M is prime to 10).
		k = min(k, 4*len(m.digits)+4)
		dx.Mul(dx, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	} else {
		if -k > len(d.digits)+1 {
			return false // M × 10^-k is larger than D
		}
		mx.Mul(mx, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-k)), nil))
	}
	return new(big.Int).Rem(dx, mx).Sign() == 0
}

// String is the number in JSON form (digits and an exponent).
func (d decimal) String() string {
	if d.isZero() {
		return "0"
	}
	s := "0." + d.digits + "e" + strconv.Itoa(d.exp)
	if d.neg {
		s = "-" + s
	}
	return s
}

// key is a canonical text for equality (1, 1.0 and 10e-1 agree).
func (d decimal) key() string {
	if d.isZero() {
		return "0"
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	return sign + d.digits + "e" + strconv.Itoa(d.exp)
}

// display shows a schema's number in a message as people write it: 150,
// 0.5, 1e+400 for the absurd.
func (d decimal) display(literal string) string {
	if d.isZero() {
		return "0"
	}
	if d.exp > 400 || d.exp < -400 {
		return literal
	}
	r, ok := new(big.Rat).SetString(d.String())
	if !ok {
		return literal
	}
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(10)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}
