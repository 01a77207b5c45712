package api

import "k8s.io/apimachinery/pkg/util/validation"

// The name rules every create checks (object names, namespaces, label
// keys and values, container and volume names), written out by hand: the
// validation package answers them with regular expressions, which cost
// more than the rest of a pod's metadata checks together. Each check here
// says only whether a name is valid; the messages of an invalid one still
// come from the validation package. validate_names_test.go holds them
// equal to its answers, by table and by fuzzing.

// Limits of the validation package's name rules.
const (
	dns1123LabelMax     = validation.DNS1123LabelMaxLength     // 63
	dns1123SubdomainMax = validation.DNS1123SubdomainMaxLength // 253
	qualifiedNameMax    = 63
	labelValueMax       = validation.LabelValueMaxLength // 63
)

// dnsName reads a name the way the prefix rules of apimachinery's
// NameIsDNSSubdomain and NameIsDNSLabel do: a generateName ending in "-"
// (longer than one byte) is checked with its last two bytes replaced by
// "a" (maskTrailingDash), without building that string.
type dnsName struct {
	s      string
	masked bool
}

func asName(s string, prefix bool) dnsName {
	return dnsName{s: s, masked: prefix && len(s) > 1 && s[len(s)-1] == '-'}
}

func (n dnsName) len() int {
	if n.masked {
		return len(n.s) - 1
	}
	return len(n.s)
}

func (n dnsName) at(i int) byte {
	if n.masked && i == len(n.s)-2 {
		return 'a'
	}
	return n.s[i]
}

func lowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func alnum(c byte) bool { return lowerAlnum(c) || 'A' <= c && c <= 'Z' }

// isDNS1123Label is validation.IsDNS1123Label finding nothing: 1 to 63
// lower-case letters, digits and '-', starting and ending alphanumeric.
func isDNS1123Label(n dnsName) bool {
	l := n.len()
	if l == 0 || l > dns1123LabelMax || !lowerAlnum(n.at(0)) || !lowerAlnum(n.at(l-1)) {
		return false
	}
	for i := 1; i < l-1; i++ {
		if c := n.at(i); !lowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain is validation.IsDNS1123Subdomain finding nothing: at
// most 253 bytes of DNS-1123 labels (of any length) joined by '.'.
func isDNS1123Subdomain(n dnsName) bool {
	l := n.len()
	if l == 0 || l > dns1123SubdomainMax {
		return false
	}
	labelStart := true
	var prev byte
	for i := 0; i < l; i++ {
		c := n.at(i)
		switch {
		case lowerAlnum(c):
			labelStart = false
		case c == '-' && !labelStart:
		case c == '.' && !labelStart && prev != '-':
			labelStart = true
		default:
			return false
		}
		prev = c
	}
	return !labelStart && prev != '-'
}

// isLabelValue is validation.IsValidLabelValue finding nothing: empty, or
// at most 63 letters, digits, '-', '_' and '.', starting and ending
// alphanumeric.
func isLabelValue(v string) bool {
	if v == "" {
		return true
	}
	if len(v) > labelValueMax || !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isQualifiedName is validation.IsQualifiedName finding nothing: a name
// part as a non-empty label value, after an optional DNS-1123 subdomain
// prefix and '/'.
func isQualifiedName(s string) bool {
	name := s
	for i := 0; i < len(s); i++ {
		if s[i] != '/' {
			continue
		}
		prefix := s[:i]
		name = s[i+1:]
		for j := 0; j < len(name); j++ {
			if name[j] == '/' {
				return false
			}
		}
		if !isDNS1123Subdomain(asName(prefix, false)) {
			return false
		}
		break
	}
	return name != "" && len(name) <= qualifiedNameMax && isLabelValue(name)
}

// dns1123LabelProblems is validation.IsDNS1123Label, at once for a valid
// name.
func dns1123LabelProblems(s string) []string {
	if isDNS1123Label(asName(s, false)) {
		return nil
	}
	return validation.IsDNS1123Label(s)
}
