package api

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Limits on resource quantities. apimachinery parses and compares
// quantities with arbitrary precision, so "1e110001100" or a megabyte of
// digits costs minutes of CPU in ParseQuantity, Cmp or Add: a request body
// could pin a core. Real values need neither (the largest suffix, E, is
// 1e18), so bramble refuses quantities beyond these limits before they are
// parsed. Within them every operation takes well under a millisecond.
const (
	MaxQuantityLen      = 64
	MaxQuantityExponent = 999
)

// checkQuantityText applies the limits to a quantity's text.
func checkQuantityText(s string) error {
	s = strings.TrimSpace(s)
	if len(s) > MaxQuantityLen {
		return fmt.Errorf("is %d characters long, more than the %d allowed", len(s), MaxQuantityLen)
	}
	if e, ok := exponentSuffix(s); ok {
		exp, err := strconv.ParseInt(e, 10, 32)
		if err != nil || exp > MaxQuantityExponent || exp < -MaxQuantityExponent {
			return fmt.Errorf("has exponent %s, outside -%d..%d", e, MaxQuantityExponent, MaxQuantityExponent)
		}
	}
	return nil
}

// exponentSuffix is the exponent s ends with, sign and digits ("+3" of
// "1e+3"), if s ends with e or E, an optional sign and one or more digits:
// what the regular expression [eE]([+-]?[0-9]+)$ captures, without its
// cost on every quantity admission checks.
func exponentSuffix(s string) (string, bool) {
	i := len(s)
	for i > 0 && '0' <= s[i-1] && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return "", false
	}
	if i > 0 && (s[i-1] == '+' || s[i-1] == '-') {
		i--
	}
	if i > 0 && (s[i-1] == 'e' || s[i-1] == 'E') {
		return s[i:], true
	}
	return "", false
}

// ParseQuantity parses a resource quantity ("500m", "1Gi", "2e3") like
// resource.ParseQuantity, within the limits above, and also rejects values
// that would not survive being stored: apimachinery prints some very large
// plain numbers with their magnitude lost ("1" followed by 30 zeros prints
// as "1"), so a value is accepted only if its printed form parses back to
// the same amount.
func ParseQuantity(s string) (resource.Quantity, error) {
	if err := checkQuantityText(s); err != nil {
		return resource.Quantity{}, fmt.Errorf("quantity %q %w", s, err)
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("quantity %q: %w", s, err)
	}
	if err := checkQuantity(q); err != nil {
		return resource.Quantity{}, fmt.Errorf("quantity %q %w", s, err)
	}
	return q, nil
}

// checkQuantity reports a parsed quantity that is outside the limits or
// whose printed form means something else.
func checkQuantity(q resource.Quantity) error {
	printed := q.String()
	if err := checkQuantityText(printed); err != nil {
		return err
	}
	return checkPrinted(q, printed)
}

// checkPrinted reports a quantity whose printed form, within the limits,
// does not parse back to the same amount and the same text.
func checkPrinted(q resource.Quantity, printed string) error {
	back, err := resource.ParseQuantity(printed)
	if err != nil || back.Cmp(q) != 0 || back.String() != printed {
		return fmt.Errorf("cannot be stored exactly (it would print as %q); use a suffix such as Ki, M or E", printed)
	}
	return nil
}
