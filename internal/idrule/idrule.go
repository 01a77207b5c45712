// Package idrule checks short ASCII identifiers byte by byte: the rules a
// regular expression such as `^[A-Za-z0-9_.-]{1,64}$` states, without the
// expression. A counted repetition compiles to one copy of its class per
// count, tens of kilobytes of heap that every process of the binary, the
// agent too, would build at init.
package idrule

// Match reports whether s is min to max bytes long, with its first byte
// passing first and every other passing rest.
func Match(s string, min, max int, first, rest func(byte) bool) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		in := rest
		if i == 0 {
			in = first
		}
		if !in(s[i]) {
			return false
		}
	}
	return true
}

// Alnum is the class A-Z a-z 0-9.
func Alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Word is the class A-Z a-z 0-9 . _ -.
func Word(c byte) bool {
	return Alnum(c) || c == '.' || c == '_' || c == '-'
}

// LowerHex is the class 0-9 a-f.
func LowerHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
}
