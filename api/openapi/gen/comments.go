package main

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// description turns doc comment lines into an OpenAPI description the way
// the Kubernetes API documents describe their fields: lines of a paragraph
// joined with spaces, paragraphs kept apart by a blank line, indented
// lines (lists, examples) kept on lines of their own; "+tag" lines and
// one-line TODOs dropped, and everything after a "---" line left out.
func description(lines []string) string {
	var b strings.Builder
	dropLast := func() {
		s := b.String()
		if s != "" {
			b.Reset()
			b.WriteString(s[:len(s)-1])
		}
	}
	for _, line := range lines {
		if line == "---" {
			break
		}
		line = strings.TrimRight(line, " ")
		lead := strings.TrimLeft(line, " ")
		switch {
		case line == "":
			dropLast()
			b.WriteString("\n\n")
		case strings.HasPrefix(lead, "TODO"), strings.HasPrefix(lead, "+"):
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "\t"):
			dropLast()
			b.WriteString("\n" + line + "\n")
		default:
			b.WriteString(line + " ")
		}
	}
	return strings.TrimSpace(b.String())
}

// tags reads "+name" and "+name=value" lines of a doc comment; a tag given
// on several lines ("+listMapKey=a", "+listMapKey=b") has several values.
func tags(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "+") {
			continue
		}
		name, value, _ := strings.Cut(line[1:], "=")
		out[name] = append(out[name], value)
	}
	return out
}

// tag is the single value of a tag, and whether it is there.
func tag(t map[string][]string, name string) (string, bool) {
	v, ok := t[name]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

var spaces = regexp.MustCompile(`\s+`)

// enumLines describes an enum's values for a field's description, each
// value with its constant's doc comment (without the constant's name),
// sorted, after a blank line and a heading.
func enumLines(values []constSource) []string {
	if len(values) == 0 {
		return nil
	}
	var lines []string
	for _, v := range values {
		c := strings.TrimSpace(strings.Join(v.doc, " "))
		c = strings.TrimSpace(strings.TrimPrefix(c, v.name))
		c = spaces.ReplaceAllString(c, " ")
		lines = append(lines, " - `"+strconv.Quote(v.value)+"` "+c)
	}
	sort.Strings(lines)
	return append([]string{"", "Possible enum values:"}, lines...)
}

// enumValues are the distinct values of an enum, sorted.
func enumValues(values []constSource) []any {
	seen := map[string]bool{}
	var vs []string
	for _, v := range values {
		if !seen[v.value] {
			seen[v.value] = true
			vs = append(vs, v.value)
		}
	}
	sort.Strings(vs)
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
