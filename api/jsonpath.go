package api

import (
	"fmt"
	"strconv"
	"strings"
)

// JSONPath is a parsed path of the simple JSONPath subset custom resource
// printer columns, selectable fields and scale paths use: ".a.b",
// ".a['b.c']", ".a[0]", ".a[*]" and filters ".a[?(@.k=="v")]", optionally
// wrapped in braces. (Upstream takes full JSONPath for printer columns;
// ranges, unions and recursive descent are refused here.)
type JSONPath []pathStep

type pathStep struct {
	key    string // a field name, when index and filter are unset
	index  int    // -1 for [*]
	isIdx  bool
	filter *pathFilter
}

type pathFilter struct {
	field JSONPath
	value string
}

// ParseJSONPath parses s; an error names what is not supported.
func ParseJSONPath(s string) (JSONPath, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	s = strings.TrimPrefix(s, "$")
	if !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "[") {
		return nil, fmt.Errorf("must start with . or [")
	}
	var out JSONPath
	for s != "" {
		var st pathStep
		var err error
		switch s[0] {
		case '.':
			st, s, err = parseDotStep(s[1:])
		case '[':
			st, s, err = parseBracketStep(s[1:])
		default:
			return nil, fmt.Errorf("unexpected %q", s)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func parseDotStep(s string) (pathStep, string, error) {
	end := strings.IndexAny(s, ".[")
	if end < 0 {
		end = len(s)
	}
	if end == 0 {
		return pathStep{}, "", fmt.Errorf("empty field name (recursive descent is not supported)")
	}
	return pathStep{key: s[:end]}, s[end:], nil
}

func parseBracketStep(s string) (pathStep, string, error) {
	end := strings.Index(s, "]")
	if strings.HasPrefix(s, "?(") {
		end = strings.Index(s, ")]") + 1
	}
	if end <= 0 {
		return pathStep{}, "", fmt.Errorf("unterminated [")
	}
	in, rest := s[:end], s[end+1:]
	switch {
	case in == "*":
		return pathStep{isIdx: true, index: -1}, rest, nil
	case strings.HasPrefix(in, "'") && strings.HasSuffix(in, "'") && len(in) >= 2:
		return pathStep{key: in[1 : len(in)-1]}, rest, nil
	case strings.HasPrefix(in, "?(@") && strings.HasSuffix(in, ")"):
		f, err := parseFilter(in[3 : len(in)-1])
		return pathStep{filter: f}, rest, err
	}
	n, err := strconv.Atoi(in)
	if err != nil || n < 0 {
		return pathStep{}, "", fmt.Errorf("unsupported subscript [%s]", in)
	}
	return pathStep{isIdx: true, index: n}, rest, nil
}

// parseFilter parses `.k=="v"` (or 'v') of a [?(@.k=="v")] filter.
func parseFilter(s string) (*pathFilter, error) {
	lhs, rhs, ok := strings.Cut(s, "==")
	if !ok {
		return nil, fmt.Errorf("unsupported filter %q: only == is", s)
	}
	p, err := ParseJSONPath(strings.TrimSpace(lhs))
	if err != nil {
		return nil, err
	}
	v := strings.TrimSpace(rhs)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return &pathFilter{field: p, value: v}, nil
}

// Find returns every value the path reaches in v (decoded JSON).
func (p JSONPath) Find(v any) []any {
	cur := []any{v}
	for _, st := range p {
		var next []any
		for _, c := range cur {
			next = st.apply(c, next)
		}
		cur = next
	}
	return cur
}

func (st pathStep) apply(v any, out []any) []any {
	switch {
	case st.filter != nil:
		list, _ := v.([]any)
		for _, e := range list {
			for _, got := range st.filter.field.Find(e) {
				if fmt.Sprint(got) == st.filter.value {
					out = append(out, e)
					break
				}
			}
		}
	case st.isIdx:
		list, _ := v.([]any)
		if st.index < 0 {
			return append(out, list...)
		}
		if st.index < len(list) {
			out = append(out, list[st.index])
		}
	default:
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[st.key]; ok {
				out = append(out, x)
			}
		}
	}
	return out
}
