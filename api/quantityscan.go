package api

// suspect reports whether b holds a run of 40 digits or dots, an e or E
// followed by an optional sign and three digits, or (with escapes set) a
// \u escape. It is a hand-written scan because it runs on every body, and
// on every stored object the shared cache decodes.
//
// In JSON (escapes set) an exponent counts only where it ends a token that
// could be a quantity: a number standing alone in a string or as a JSON
// number (numberAround). Without that, any UID holding "e123" (most of
// them) sent every stored pod through the full guard.
func suspect(b []byte, escapes bool) bool {
	run := 0
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9' || c == '.':
			if run++; run >= 40 {
				return true
			}
			continue
		case c == 'e' || c == 'E':
			if expDigits(b[i+1:]) >= 3 && (!escapes || numberAround(b, i)) {
				return true
			}
		case c == '\\' && escapes && i+1 < len(b) && b[i+1] == 'u':
			return true
		}
		run = 0
	}
	return false
}

// expDigits counts the digits after an optional sign at the start of b,
// stopping at three.
func expDigits(b []byte) int {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	n := 0
	for n < 3 && n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// numberAround reports whether the e at b[i] could belong to a quantity
// that is a number with an exponent: before it only digits, dots and signs
// back to what opens a JSON value, after it only those up to what closes
// one. Bytes a quantity's decoder trims (ASCII spaces and controls, and
// any non-ASCII byte, which could be part of a Unicode space) may pad
// either end; a JSON escape (\t, \n, ...) there counts as padding too. It
// errs towards true: a false true costs only the full guard.
func numberAround(b []byte, i int) bool {
	j := i - 1
	for j >= 0 && numberByte(b[j]) {
		j--
	}
	for j >= 0 && trimmed(b[j]) {
		j--
	}
	if j >= 1 && b[j-1] == '\\' {
		return true // an escape: \t1e999 decodes to a tab and 1e999
	}
	if j >= 0 && b[j] != '"' && b[j] != ':' && b[j] != ',' && b[j] != '[' {
		return false
	}
	k := i + 1
	for k < len(b) && numberByte(b[k]) {
		k++
	}
	for k < len(b) && trimmed(b[k]) {
		k++
	}
	return k == len(b) || b[k] == '"' || b[k] == ',' || b[k] == '}' || b[k] == ']' || b[k] == ':' || b[k] == '\\'
}

func numberByte(c byte) bool { return c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' }

func trimmed(c byte) bool { return c <= ' ' || c >= 0x80 }
