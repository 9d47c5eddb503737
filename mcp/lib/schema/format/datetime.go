package format

// The date and time formats of RFC 3339 section 5.6 and the durations of
// its appendix A. Only the RFC's own grammar is accepted, not the rest of
// ISO 8601 (no week dates, ordinal dates, commas or fractional units).

// isDate reports whether s is a full-date: YYYY-MM-DD, a real day of the
// proleptic Gregorian calendar.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= daysIn(month, year)
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// digits parses s, which must be all ASCII digits and not empty.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// isTime reports whether s is a full-time: hh:mm:ss[.frac] followed by Z or
// an offset ±hh:mm. A leap second (ss = 60) is accepted only where it can
// happen, at 23:59 UTC once the offset is taken off.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if rest != "" && rest[0] == '.' {
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	utc := h*60 + m
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		off := oh*60 + om
		if rest[0] == '+' {
			off = -off
		}
		utc = ((utc+off)%1440 + 1440) % 1440
	default:
		return false
	}
	return sec < 60 || utc == 23*60+59
}

// isDateTime reports whether s is an RFC 3339 date-time: a full-date, T
// (either case) and a full-time.
func isDateTime(s string) bool {
	return len(s) >= 20 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// isDuration reports whether s matches RFC 3339's duration grammar:
//
//	duration = "P" (dur-date / dur-time / dur-week)
//	dur-date = (dur-day / dur-month / dur-year) [dur-time]
//	dur-time = "T" (dur-hour / dur-minute / dur-second)
//
// where a year may be followed by months, months by days, hours by
// minutes and minutes by seconds, and nothing skips a unit: P1Y2D and
// PT1H2S are not durations (P1Y0M2D and PT1H0M2S are).
func isDuration(s string) bool {
	if len(s) < 3 || s[0] != 'P' {
		return false
	}
	s = s[1:]
	if s[len(s)-1] == 'W' {
		_, ok := digits(s[:len(s)-1])
		return ok
	}
	date, time := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == 'T' {
			date, time = s[:i], s[i+1:]
			if time == "" {
				return false
			}
			break
		}
	}
	return unitRun(date, "YMD") && unitRun(time, "HMS") && (date != "" || time != "")
}

// unitRun reports whether s is a run of number-unit pairs whose units are
// consecutive letters of units (e.g. "1Y2M", "2M3D", "3D" for "YMD").
func unitRun(s, units string) bool {
	next := -1 // index in units of the unit the next pair must have
	for s != "" {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 || i == len(s) {
			return false
		}
		u := -1
		for j := 0; j < len(units); j++ {
			if units[j] == s[i] {
				u = j
			}
		}
		if u < 0 || next >= 0 && u != next {
			return false
		}
		next = u + 1
		s = s[i+1:]
		if s != "" && next == len(units) {
			return false
		}
	}
	return true
}

// isPeriod reports whether s is a time interval of ISO 8601 in RFC 3339's
// terms: start/end, start/duration or duration/end.
func isPeriod(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			start, end := s[:i], s[i+1:]
			if start != "" && start[0] == 'P' {
				return isDuration(start) && isDateTime(end)
			}
			if end != "" && end[0] == 'P' {
				return isDateTime(start) && isDuration(end)
			}
			return isDateTime(start) && isDateTime(end)
		}
	}
	return false
}
